/* Elaboration: the AST to IR, shared by elab_*.c.
 *
 * Expressions evaluate to values. Python-level values (ints, floats, bools,
 * strings, dtypes, tuples, None) are compile-time constants: arithmetic on them is
 * folded with Python's semantics, which is how factory parameters and module
 * constants reach the IR as plain integers. Everything that depends on run-time
 * data is an IR expression. Names live in one binding stack (module, factory and
 * function bindings, innermost last); blocks truncate it when they end. */
#ifndef TL_IR_PARSE_ELAB_H
#define TL_IR_PARSE_ELAB_H

#include "base/vec.h"
#include "parse.h"

/* ------------------------------------------------------------------ values */

typedef enum tl__val_kind {
  /* Python values (compile-time) */
  V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_DTYPE, V_TUPLE,
  /* IR */
  V_EXPR,    /* a scalar IR expression */
  V_VAR,     /* an IR variable (a fresh reference is made at each use) */
  V_BUFFER,  /* a buffer */
  V_VARSLOT, /* a T.alloc_var buffer: reading loads, assigning stores */
  /* names */
  V_MODULE,   /* an imported module */
  V_BUILTIN,  /* T.<something> or a Python builtin the subset knows */
  V_SYMBOLIC, /* T.symbolic/T.dynamic at module level: one variable per function */
  V_PRIMFUNC, /* a @T.prim_func nested in a factory, elaborated */
  V_LAMBDA,   /* a lambda: called on compile-time or IR values, its body evaluated there */
  V_FUNC,     /* a helper `def` or @T.macro of the file: inlined where it is called (elab_helper.c) */
  V_OPAQUE    /* anything else (other modules, helper functions): an error when used */
} tl__val_kind;

typedef enum tl__modkind { MOD_TILELANG, MOD_LANG, MOD_OTHER } tl__modkind;

typedef struct tl__prim_func_val tl__prim_func_val;
typedef struct tl__val tl__val;
struct tl__val {
  uint8_t kind; /* tl__val_kind */
  union {
    bool b;
    int64_t i;
    double f;
    struct { const char *s; size_t n; } str;
    tl_dtype dt;
    struct { uint32_t n; tl__val **items; } tup;
    tl_ir_expr *e;
    tl_ir_var *var;
    tl_ir_buffer *buf;
    struct { uint8_t kind; const char *name; } mod;
    struct { int id; int op; const char *name; } bi;
    struct { const char *name; tl_dtype dt; } sym;
    tl__prim_func_val *pf;
    const tl__ast_expr *lambda; /* the AE_LAMBDA */
    /* V_FUNC: the definition; visible: bindings [0, visible) its body sees
     * (TL__VISIBLE_MODULE: the module's, as a top-level function sees them) */
    struct { const tl__ast_stmt *def; size_t visible; bool macro; } fn;
    const char *opaque; /* how to name it in messages */
  } u;
};

bool tl__val_is_py(const tl__val *v); /* a Python compile-time value */

/* ------------------------------------------------------------------ builtins */

typedef enum tl__builtin {
  BI_NONE,
  BI_TENSOR, BI_BUFFER, BI_PRIM_FUNC, BI_JIT,
  BI_KERNEL, BI_PARALLEL, BI_SERIAL, BI_PIPELINED, BI_UNROLL, BI_VECTORIZED, BI_GRID, BI_RANGE,
  BI_ALLOC_SHARED, BI_ALLOC_FRAGMENT, BI_ALLOC_LOCAL, BI_ALLOC_VAR,
  BI_CONST, BI_EMPTY, BI_SYMBOLIC,
  BI_COPY, BI_FILL, BI_CLEAR, BI_GEMM, BI_REDUCE, BI_ATOMIC_ADD, BI_CUMSUM, BI_SYNC_THREADS,
  BI_ATOMIC_ADDX, /* T.atomic_addx2/x4: T.atomic_add of `op` (2 or 4) consecutive elements */
  BI_ANY_OF, BI_ALL_OF,
  BI_THREAD_BINDING, BI_BLOCK_BINDING, BI_THREAD_EXTENT, BI_BLOCK_EXTENT, /* T.get_thread_binding(i), ... */
  BI_THREAD_BINDING_OF, /* T.thread_binding(start, stop, thread="threadIdx.x") in a T.Kernel */
  BI_WARP_INDEX,        /* T.get_lane_idx, T.get_warp_idx(_sync), T.get_warp_group_idx (elab_warp.c) */
  BI_ASSUME,            /* T.assume(cond): a statement */
  BI_RESHAPE, BI_VIEW, /* T.reshape, T.view (elab_view.c) */
  BI_MATH, BI_MAX, BI_MIN, BI_IF_THEN_ELSE, BI_CEILDIV, BI_TRUNCDIV, BI_CAST_DT_X, BI_CAST_X_DT, BI_INFINITY,
  BI_OPERATOR, BI_BITWISE_NOT, BI_TRUNCMOD, BI_SELECT, BI_CLAMP, BI_MAX_VALUE, BI_MIN_VALUE,
  BI_PY_MIN, BI_PY_MAX, BI_PY_ABS, BI_PY_INT, BI_PY_FLOAT, BI_PY_LEN, BI_PY_BOOL, BI_PY_ISINSTANCE,
  BI_PY_SUM, BI_PY_ANY, BI_PY_ALL, BI_PY_ENUMERATE, BI_PY_ZIP, BI_PY_SORTED, BI_PY_REVERSED, BI_PY_LIST, BI_PY_TUPLE,
  BI_HINT,        /* a hint statement: T.use_swizzle, T.annotate_layout, ... (elab_hints.c) */
  BI_FUNC_ATTR,   /* T.func_attr({...}) */
  BI_WARP_POLICY, /* T.GemmWarpPolicy: its members are strings */
  BI_LAYOUT,      /* T.Layout, T.Fragment, make_swizzled_layout: values only hints take */
  BI_DTYPE_OF,    /* T.dtype("float16"): the dtype (its .bits are a value) */
  BI_MACRO        /* @T.macro: a helper whose body is expanded where it is called */
} tl__builtin;

typedef struct tl__builtin_info {
  const char *name; /* as written after "T." (or bare, for Python builtins) */
  tl__builtin id;
  int op;           /* tl_ir_op for BI_MATH and tile ops, the tl__ast_op of BI_OPERATOR, the lanes of
                     * BI_ATOMIC_ADDX, the tl__warp_index of BI_WARP_INDEX, else -1 */
} tl__builtin_info;

/* The index BI_WARP_INDEX computes from the block's linear thread index. */
typedef enum tl__warp_index { WI_LANE, WI_WARP, WI_WARP_GROUP } tl__warp_index;

/* The member `name` of tilelang.language (NULL if the subset lacks it). */
const tl__builtin_info *tl__builtin_lang(const char *name);
/* A Python builtin function the subset evaluates (range, min, max, ...). */
const tl__builtin_info *tl__builtin_python(const char *name);
/* A dtype name as TileLang spells it, with TVM's short forms ("float" -> float32). */
bool tl__dtype_from_name(const char *name, tl_dtype *out);

/* ------------------------------------------------------------------ state */

typedef enum tl__binding_kind {
  B_VALUE,   /* a compile-time value or an alias */
  B_LET,     /* an IR value bound by a LET */
  B_LOOP,    /* a loop variable */
  B_BLOCK,   /* a block index of T.Kernel */
  B_PARAM,   /* a parameter (buffer or scalar) */
  B_ALLOC,   /* a buffer made by T.alloc_* or T.empty */
  B_VARSLOT, /* a T.alloc_var */
  B_SYM,     /* a symbolic dimension */
  B_MODULE   /* imports, functions and constants at the top level */
} tl__binding_kind;

typedef struct tl__binding {
  const char *name;
  tl__val *v;
  uint8_t kind;   /* tl__binding_kind */
  uint16_t depth; /* block depth where it was bound */
  uint16_t loops; /* loops enclosing the binding */
  uint32_t line, col;
} tl__binding;

/* A symbolic dimension used by the function being elaborated. */
typedef struct tl__symvar {
  const tl__val *key; /* the module-level T.symbolic value, or NULL (T.const, local T.symbolic) */
  tl_ir_var *var;
  bool in_shape; /* a parameter's shape mentions it (so arguments define it) */
  uint32_t line, col;
} tl__symvar;

typedef struct tl__fparam {
  tl_ir_param_kind kind;
  tl_ir_buffer *buf;
  tl_ir_var *var;
  bool is_output;
} tl__fparam;

/* A tensor parameter of a @tilelang.jit function, declared by `A: T.Tensor(...)`. */
typedef struct tl__jitparam {
  const char *name;
  tl_ir_buffer *buf; /* NULL until declared */
  uint32_t line, col;
} tl__jitparam;

/* A function elaborated but not yet added to the module (factories name it). */
/* A function attribute the front end sets: T.func_attr({...}) entries and the
 * hints recorded as "tl.hint.<name>" (elab_hints.c). */
typedef struct tl__fattr {
  const char *key;
  bool is_int;
  int64_t i;
  const char *s;
} tl__fattr;

struct tl__prim_func_val {
  tl__vec params; /* tl__fparam */
  tl__vec attrs;  /* tl__fattr, in the order set */
  tl_ir_stmt *body;
  uint32_t line, col;
};

typedef enum tl__fkind { FK_PRIM_FUNC, FK_JIT, FK_FACTORY } tl__fkind;

typedef struct tl__addx_call {
  const tl_ir_expr *call; /* a T.atomic_add made by T.atomic_addx2/x4 */
  struct tl__addx_call *next;
} tl__addx_call;

typedef struct tl__kernel_scope {
  uint32_t ng, nt;
  tl_ir_expr *grid[3], *threads[3];
  tl_ir_var *blocks[3], *threads_bound[3];
  uint32_t first_line, first_col;
  const char *first_what; /* the call that bound the first thread index ("T.get_lane_idx"), for messages */
  tl__addx_call *addx; /* in the parse arena: each thread's own vector atomics in per-thread code */
  const char *name_hint; /* `tn = T.get_thread_binding(0)`: the name a new thread variable takes */
} tl__kernel_scope;

typedef struct tl__fstate {
  tl__fkind kind;
  size_t env_start;     /* bindings from here on are the function's own */
  size_t outer_visible; /* bindings [0, outer_visible) of enclosing scopes are visible */
  int depth;            /* block depth: 1 is the function's top block */
  int loops;            /* enclosing loops */
  int lets;             /* LETs whose scope encloses the current point */
  bool in_kernel;
  /* The T.Kernel being elaborated: its extents and block variables, and the thread
   * variables T.get_thread_binding(i) made (the kernel's code is then per-thread
   * SIMT code, elab_simt.c) with where the first was asked for. */
  tl__kernel_scope kernel;
  bool in_params;       /* elaborating parameter annotations (symbolic dims count as defined) */
  tl__vec syms;         /* tl__symvar */
  /* jit style */
  tl__vec tparams;      /* tl__jitparam, in signature order */
  tl__vec empties;      /* tl_ir_buffer*: made by T.empty */
  tl__vec outputs;      /* tl_ir_buffer*: returned, in order */
  bool returned;
  tl__prim_func_val *pf; /* the function being built (prim_func and jit), for its attributes */
} tl__fstate;

/* A helper function being inlined (elab_helper.c): while it runs, names resolve
 * in its own bindings [env_start, len) and then in [0, outer_visible), as in the
 * helper's lexical scope; the caller's locals are hidden. */
#define TL__VISIBLE_MODULE ((size_t)-1)
enum { TL__LOOP_NONE, TL__LOOP_BREAK, TL__LOOP_CONTINUE };
#define TL__MAX_WHILE_ITERATIONS 100000 /* a compile-time while loop's iterations */
#define TL__MAX_HELPER_DEPTH 64
typedef struct tl__frame tl__frame;

typedef struct tl__elab {
  tl__parse_ctx *p;
  tl_ir_module *mod;
  const char *file; /* interned in the module */
  const tl_ir_parse_options *opts;
  bool *used_consts; /* per opts->consts entry */
  tl__vec env;       /* tl__binding */
  tl__fstate *fn;    /* the innermost function, NULL at the top level */
  const char *only_func; /* opts->func: elaborate only this top-level function */
  /* `from M import *`: names not otherwise defined come from T (tilelang.language)
   * or are opaque members of M */
  bool star_lang;
  const char *star_module;
  tl__frame *frame;  /* the innermost helper being inlined, NULL when none */
  int loop_ctl;      /* compile-time loops: a `break`/`continue` ran (TL__LOOP_*), until its loop sees it */
  int ct_loop_base;  /* kernel code: E->fn->loops at the innermost compile-time while (-1: none) */
  int frame_depth;
  size_t module_len; /* module bindings [0, module_len) once the top level has run */
  bool module_done;
} tl__elab;

/* ------------------------------------------------------------------ helpers */

/* A source position (1-based line and column). */
typedef struct tl__pos {
  uint32_t line, col;
} tl__pos;
#define POS(node) ((tl__pos){(node)->line, (node)->col})

struct tl__frame {
  const tl__ast_stmt *def; /* the helper */
  tl__pos call;            /* where it was called */
  size_t env_start, outer_visible;
  tl__fstate *fn;          /* the function being elaborated when it was called (NULL: top level) */
  int depth;               /* statement mode: the block depth of the helper's body */
  bool stmts;              /* statement mode (a body that may build kernel statements) */
  bool macro;              /* a @T.macro (for messages) */
  bool returned;           /* a `return` ran */
  tl__val *ret;            /* its value (None when bare) */
  tl__frame *prev;
};

/* The first binding of the innermost scope that a new binding may shadow: the
 * helper's own (when one is being inlined) or the function's. */
size_t tl__scope_start(tl__elab *E);
/* The helper frame that belongs to the function being elaborated, or NULL. */
tl__frame *tl__cur_frame(tl__elab *E);

/* Records an error at a position; returns the status. */
tl_status tl__elab_error(tl__elab *E, tl__pos at, const char *fmt, ...) TL_PRINTF(3, 4);
/* elab_simt.c: T.get_thread_binding(i), T.get_block_binding(i), T.get_thread_extent(i),
 * T.get_block_extent(i) and T.thread_binding(start, stop, thread=tag) (as a value and
 * as the iterable of a for loop) in the T.Kernel being elaborated. */
tl__val *tl__elab_kernel_binding(tl__elab *E, const tl__ast_expr *e, const tl__val *fn);
/* The T.Kernel's thread variable of dimension d (0 to 2), made on first use (the
 * kernel becomes per-thread code); e is the call asking, `what` its name. NULL
 * after a builder failure (recorded). */
tl_ir_var *tl__elab_thread_var(tl__elab *E, uint32_t d, const tl__ast_expr *e, const char *what);
/* elab_warp.c: T.get_lane_idx, T.get_warp_idx(_sync), T.get_warp_group_idx (fn's
 * op is the tl__warp_index) as arithmetic on the block's linear thread index. */
tl__val *tl__elab_warp_index(tl__elab *E, const tl__ast_expr *e, const tl__val *fn);
/* Checks a T.Kernel body that binds thread indices (per-thread code) for the
 * constructs such kernels support, with the error at the first one that is not;
 * returns the body with its T.Pipelined loops serial, NULL on error. */
tl_ir_stmt *tl__elab_check_simt_kernel(tl__elab *E, tl_ir_stmt *body);
/* Sets the builder's location for the nodes made next. */
void tl__elab_at(tl__elab *E, tl__pos at);
/* A NULL came back from the builder: records its status (out of memory, usually). */
tl_status tl__elab_builder_failed(tl__elab *E);

tl__val *tl__val_new(tl__elab *E, tl__val_kind kind);
tl__val *tl__val_int(tl__elab *E, int64_t i);
tl__val *tl__val_float(tl__elab *E, double f);
tl__val *tl__val_bool(tl__elab *E, bool b);
tl__val *tl__val_expr(tl__elab *E, tl_ir_expr *e); /* NULL if e is NULL (builder failure recorded) */
/* How to name a value in messages: "an integer", "buffer 'A'", "T.copy". */
const char *tl__val_describe(tl__elab *E, const tl__val *v);

/* Bindings. */
bool tl__bind(tl__elab *E, const char *name, tl__val *v, tl__binding_kind kind, uint32_t line, uint32_t col);
tl__binding *tl__lookup(tl__elab *E, const char *name);

/* Python values. */
bool tl__py_truth(const tl__val *v);
/* Folds a binary/unary/compare operator on Python values; NULL after an error. */
tl__val *tl__py_binop(tl__elab *E, tl__pos at, tl__ast_op op, const tl__val *a, const tl__val *b);
tl__val *tl__py_unop(tl__elab *E, tl__pos at, tl__ast_op op, const tl__val *a);
/* Equality of Python values (dtypes equal their names). */
bool tl__py_equal(const tl__val *a, const tl__val *b);

/* Conversions. */
bool tl__as_dtype(tl__elab *E, const tl__val *v, tl__pos at, tl_dtype *out);
/* A Python int (bools too); false with an error naming `what` otherwise. */
bool tl__as_int(tl__elab *E, const tl__val *v, tl__pos at, const char *what, int64_t *out);
bool tl__as_bool(tl__elab *E, const tl__val *v, tl__pos at, const char *what, bool *out);
/* A value as an IR expression. Python numbers become constants of `want` when it is
 * compatible (an int adopts any numeric type, a float any float type), else of
 * their default type (int32, float32, bool). want may be NULL. */
tl_ir_expr *tl__to_ir(tl__elab *E, const tl__val *v, tl__pos at, const tl_dtype *want);
/* An int32 index or extent (Python ints, int IR expressions cast to int32). */
tl_ir_expr *tl__to_index(tl__elab *E, const tl__val *v, tl__pos at, const char *what);
/* A value converted to dtype (a cast when it differs). */
tl_ir_expr *tl__to_dtype(tl__elab *E, const tl__val *v, tl__pos at, tl_dtype dt);
/* A condition: bool IR, or numeric IR compared with zero. */
tl_ir_expr *tl__to_cond(tl__elab *E, const tl__val *v, tl__pos at);
/* Casts both to a common dtype (TVM's promotion rules). */
bool tl__promote(tl__elab *E, tl__pos at, tl_ir_expr **a, tl_ir_expr **b);
/* A binary operator on two values, folding Python values. */
tl__val *tl__binop(tl__elab *E, const tl__ast_expr *at, tl__ast_op op, tl__val *a, tl__val *b);
/* A shape: an int, or a tuple/list of ints and int expressions. */
bool tl__shape(tl__elab *E, const tl__val *v, tl__pos at, uint32_t *ndim, tl_ir_expr ***shape);

/* Expressions. */
tl__val *tl__eval(tl__elab *E, const tl__ast_expr *e);
/* tl__eval where failing is an answer (script code at the top level, decorators):
 * on an error about the input, clears it and returns NULL with *why (if not NULL)
 * the message's first line without its location. Out of memory stays an error. */
tl__val *tl__try_eval(tl__elab *E, const tl__ast_expr *e, const char **why);
/* The variable of a symbolic dimension in the current function. */
tl_ir_var *tl__sym_var(tl__elab *E, const tl__val *sym, tl__pos at);
/* Evaluates a call's arguments against a signature: names[i] for parameter i,
 * nreq required. Positional then keyword; unknown keywords and missing or repeated
 * arguments are errors naming `fname`. Missing optional ones are NULL. */
bool tl__call_args(tl__elab *E, const tl__ast_expr *call, const char *fname, const char *const *names, int nparams,
                   int nreq, const tl__ast_expr **out);

/* Statements. */
/* A block in a new scope (one level deeper): a SEQ whose assignments became LETs
 * over the rest of the block. */
tl_ir_stmt *tl__elab_block(tl__elab *E, const tl__ast_block *b);
/* The statements of a block in the current scope (a function's top block). */
tl_ir_stmt *tl__elab_block_here(tl__elab *E, const tl__ast_block *b);
/* A tile operation used as a statement (T.copy, ...); bi->name is the spelling
 * used for messages ("T.copy"). NULL after an error. */
tl_ir_stmt *tl__elab_tile_op(tl__elab *E, const tl__ast_expr *call, const tl__builtin_info *bi);
/* T.any_of(region) / T.all_of(region) (all: true): whether any (every) element of
 * a buffer, a region or one element is nonzero, as a bool expression over its
 * elements (constant extents). NULL after an error. */
/* T.reshape / T.view (is_view) call: the view buffer named `name`, or NULL after an
 * error (elab_view.c). */
tl_ir_buffer *tl__elab_view(tl__elab *E, const tl__ast_expr *call, const char *opname, bool is_view,
                            const char *name);
tl__val *tl__elab_any_all(tl__elab *E, const tl__ast_expr *call, const char *opname, bool all);

/* The caller's binding for `name` (opts->consts; marked used), parsed as a Python
 * literal; NULL with *found false when there is none, NULL after an error. */
tl__val *tl__bound_const(tl__elab *E, const char *name, bool *found);

/* Hints (elab_hints.c): calls that tell upstream's compiler how to schedule a
 * kernel and never change its results. tl__elab_hint records one on the function
 * being built as the attribute "tl.hint.<name>" (a second one of a name is
 * appended after "; "). tl__elab_hint_stmt elaborates a hint statement
 * (T.use_swizzle, T.annotate_layout, ...); tl__elab_func_attr T.func_attr({...}).
 * tl__elab_hint_kwargs records keyword arguments of a call that are hints. */
bool tl__elab_hint(tl__elab *E, tl__pos at, const char *name, const char *text);
bool tl__elab_hint_stmt(tl__elab *E, const tl__ast_expr *call, const tl__builtin_info *bi);
bool tl__elab_func_attr(tl__elab *E, const tl__ast_expr *call);
/* Removes the hint keywords (names, n of them) from a call, recording those given
 * as hint `hint` ("T.gemm: policy=FullRow"): *out is the call without them (a
 * copy when any was there, else the call itself). */
bool tl__elab_hint_kwargs(tl__elab *E, const tl__ast_expr *call, const char *hint, const char *const *names, int n,
                          const tl__ast_expr **out);

/* Functions of other modules evaluated on compile-time values (elab_pyfuncs.c):
 * math.gcd, math.ceil, tilelang.math.next_power_of_2, tvm.DataType, ... by their
 * qualified name ("math.gcd"); constants such as math.pi (NULL if not one). */
bool tl__py_func_known(const char *qualname);
bool tl__py_builtin_name(const char *name); /* print, isinstance, ...: defined, not evaluated */
tl__val *tl__py_func_call(tl__elab *E, const tl__ast_expr *call, const char *qualname);
tl__val *tl__py_const(tl__elab *E, const char *qualname);

/* Sequences (elab_pyseq.c): a comprehension or generator expression (AE_COMP)
 * over compile-time sequences, a tuple of its items; range() outside a for
 * loop, sum, any, all, enumerate, zip, sorted, reversed, list and tuple. */
tl__val *tl__eval_comp(tl__elab *E, const tl__ast_expr *e);
tl__val *tl__call_seq_builtin(tl__elab *E, const tl__ast_expr *call, const tl__val *fn);

/* `import ...` / `from ... import ...` in any scope: binds the names. */
bool tl__elab_import_stmt(tl__elab *E, const tl__ast_stmt *s);

/* A `raise` that runs (its branch is taken for the values given): an error at its
 * line with the exception's message. */
bool tl__elab_raise(tl__elab *E, const tl__ast_stmt *s);

/* `assert test, msg` evaluated at compile time (factories, the top level). */
bool tl__elab_assert(tl__elab *E, const tl__ast_stmt *s);

/* Helper functions (elab_helper.c). A `def` of the file that is neither a
 * kernel nor a factory, or a @T.macro, is a V_FUNC value; calling it inlines its
 * body with its parameters bound to the arguments (buffers, IR expressions and
 * compile-time values alike, by reference as Python passes them).
 * tl__helper_value makes the value of a definition (visible as in V_FUNC);
 * tl__call_helper runs a call in an expression: the body may compute values
 * (assignments, compile-time if/for, return) but not build statements.
 * A call that stands as a statement in a kernel (or as the whole value of an
 * assignment) is inlined by elab_stmt.c between tl__helper_enter (arguments
 * evaluated, frame pushed, parameters bound; false after an error, the frame
 * gone) and tl__helper_leave: the body's statements join the caller's block, so
 * values it binds stay valid for what it returns. */
tl__val *tl__helper_value(tl__elab *E, const tl__ast_stmt *def, size_t visible);
tl__val *tl__call_helper(tl__elab *E, const tl__ast_expr *call, const tl__val *fn);
bool tl__helper_enter(tl__elab *E, const tl__ast_expr *call, const tl__val *fn, tl__frame *f);
void tl__helper_leave(tl__elab *E, tl__frame *f, const tl__val *fn);

/* A @T.prim_func defined in factory code (a factory's body, or a helper it
 * calls): elaborated, bound to its name as a V_PRIMFUNC. tl__is_prim_func_def
 * tells such a definition; tl__prim_func_free frees one not returned. */
bool tl__nested_prim_func(tl__elab *E, const tl__ast_stmt *s);
bool tl__is_prim_func_def(tl__elab *E, const tl__ast_stmt *s);
void tl__prim_func_free(tl__prim_func_val *pf);

/* Functions. */
/* A parameter annotation: T.Tensor/T.Buffer (a global buffer named `name`) or a
 * dtype (a scalar variable). Exactly one of *buf, *var is set. */
bool tl__annotation(tl__elab *E, const tl__ast_expr *ann, const char *name, tl__pos at, tl_ir_buffer **buf,
                    tl_ir_var **var);
/* A @T.prim_func definition (module level or inside a factory); bindings
 * [0, outer_visible) of the enclosing scopes are visible to it. */
tl__prim_func_val *tl__elab_prim_func(tl__elab *E, const tl__ast_stmt *def, size_t outer_visible);

#endif
