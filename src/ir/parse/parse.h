/* The TileLang-script front end: internals shared by its phases.
 *
 *   lexer.c        source text -> tokens (Python's INDENT/DEDENT, implicit joining)
 *   parser*.c      tokens -> a small Python AST (statements, expressions)
 *   elab*.c        AST -> IR through the builder (constants, scoping, dtypes)
 *   frontend.c     tl_ir_parse / tl_ir_parse_file
 *
 * Every phase allocates in the context's arena, which dies when parsing ends;
 * the IR lives in the module's arena. Errors are reported once, at their line and
 * column, through tl__parse_error (message, source line, caret). */
#ifndef TL_IR_PARSE_PARSE_H
#define TL_IR_PARSE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/vec.h"
#include "tilelang/ir.h"

/* Limits that keep recursion bounded on any input (the fuzzer relies on them). */
#define TL__PARSE_MAX_BLOCK_DEPTH 100  /* nested indented blocks (Python's own limit) */
#define TL__PARSE_MAX_EXPR_DEPTH 200   /* nested expression nodes */
#define TL__PARSE_MAX_BRACKETS 200     /* open brackets at once */
#define TL__PARSE_MAX_LETS 1000       /* nested LET scopes (assignments) on any path */
#define TL__PARSE_MAX_SOURCE ((size_t)1 << 28)

/* ------------------------------------------------------------------ context */

typedef struct tl__parse_ctx {
  const char *src; /* NUL-terminated source */
  size_t len;
  const char *file; /* as given by the caller (for messages) */
  tl__arena arena;  /* tokens' strings, the AST, elaboration values */
  tl_status status; /* TL_OK until the first error */
  /* The first error is about valid Python outside the subset (a lambda, a class),
   * not a syntax error: at the top level such a statement is kept unread (see
   * AS_OPAQUE and tl__ast_stmt.def.deferred) rather than failing the file. */
  bool outside_subset;
} tl__parse_ctx;

void tl__parse_ctx_init(tl__parse_ctx *p, const char *src, size_t len, const char *file);
void tl__parse_ctx_free(tl__parse_ctx *p);
/* Records an error at line:col (1-based; col counts characters): the message is
 * "file:line:col: msg", then the source line and a caret under the column. Only
 * the first error is kept. Returns the context's status. */
tl_status tl__parse_error(tl__parse_ctx *p, uint32_t line, uint32_t col, const char *fmt, ...) TL_PRINTF(4, 5);
/* Appends a note to the recorded input error (TL_EINVAL): "file:line:col: note:
 * msg", the source line and a caret; other statuses are left as they are. */
tl_status tl__parse_note(tl__parse_ctx *p, uint32_t line, uint32_t col, const char *fmt, ...) TL_PRINTF(4, 5);
/* Records out of memory (keeps an earlier error). */
tl_status tl__parse_oom(tl__parse_ctx *p);
/* Zeroed arena memory; NULL after recording out of memory. */
void *tl__parse_alloc(tl__parse_ctx *p, size_t n);
char *tl__pstrndup(tl__parse_ctx *p, const char *s, size_t n);

/* ------------------------------------------------------------------ tokens */

typedef enum tl__tok_kind {
  TK_EOF,
  TK_NEWLINE,
  TK_INDENT,
  TK_DEDENT,
  TK_NAME,   /* identifiers and keywords: s */
  TK_INT,    /* ival */
  TK_FLOAT,  /* fval */
  TK_STRING, /* decoded content: s, slen; flags */
  TK_OP      /* s points at a static operator spelling */
} tl__tok_kind;

enum { TL__STR_RAW = 1, TL__STR_BYTES = 2, TL__STR_F = 4 };

typedef struct tl__tok {
  uint8_t kind;
  uint8_t flags;
  uint32_t line, col; /* 1-based; col in characters */
  uint32_t off, len;  /* bytes of the source */
  int64_t ival;
  double fval;
  const char *s;
  size_t slen;
} tl__tok;

/* Tokenizes p->src into toks (a tl__vec of tl__tok), ending with TK_EOF. */
tl_status tl__lex(tl__parse_ctx *p, tl__vec *toks);
bool tl__tok_is_keyword(const tl__tok *t);

/* ------------------------------------------------------------------ AST */

typedef enum tl__ast_ekind {
  AE_NAME, AE_INT, AE_FLOAT, AE_STR, AE_BOOL, AE_NONE,
  AE_ATTR, AE_CALL, AE_SUBSCRIPT, AE_SLICE, AE_TUPLE, AE_LIST, AE_DICT,
  AE_BINOP, AE_UNOP, AE_BOOLOP, AE_COMPARE, AE_IFEXP, AE_LAMBDA,
  AE_COMP /* [elt for t in it if c ...] and (elt for ...): evaluated on compile-time sequences */
} tl__ast_ekind;

typedef enum tl__ast_op {
  /* AE_BINOP and augmented assignment */
  AOP_ADD, AOP_SUB, AOP_MUL, AOP_DIV, AOP_FLOORDIV, AOP_MOD, AOP_POW,
  AOP_LSHIFT, AOP_RSHIFT, AOP_BITAND, AOP_BITOR, AOP_BITXOR,
  /* AE_UNOP */
  AOP_NEG, AOP_POS, AOP_INVERT, AOP_NOT,
  /* AE_BOOLOP */
  AOP_AND, AOP_OR,
  /* AE_COMPARE */
  AOP_EQ, AOP_NE, AOP_LT, AOP_LE, AOP_GT, AOP_GE, AOP_IN, AOP_NOTIN, AOP_IS, AOP_ISNOT
} tl__ast_op;

/* The Python spelling of an operator ("+", "//", "not in"). */
const char *tl__ast_op_str(tl__ast_op op);

typedef struct tl__ast_expr tl__ast_expr;
/* One `for target in iter [if cond]...` clause of a comprehension. */
typedef struct tl__ast_comp_clause {
  tl__ast_expr *target, *iter;
  uint32_t nconds;
  tl__ast_expr **conds;
} tl__ast_comp_clause;
struct tl__ast_expr {
  uint8_t kind; /* tl__ast_ekind */
  uint8_t op;   /* tl__ast_op for BINOP, UNOP, BOOLOP */
  uint16_t depth;
  uint32_t line, col;
  union {
    const char *name;
    int64_t i;
    double f;
    bool b;
    struct { const char *s; size_t n; bool f; } str; /* f: an f-string (only assert messages take one) */
    struct { tl__ast_expr *obj; const char *name; } attr;
    struct {
      tl__ast_expr *fn;
      uint32_t nargs, nkw;
      tl__ast_expr **args;
      const char **kwnames;
      tl__ast_expr **kwvals;
    } call;
    struct { tl__ast_expr *obj, *index; } sub;
    struct { tl__ast_expr *lo, *hi, *step; } slice; /* each may be NULL */
    struct { uint32_t n; tl__ast_expr **items; } seq; /* AE_TUPLE, AE_LIST */
    struct { uint32_t n; tl__ast_expr **keys, **vals; } dict;
    struct { tl__ast_expr *a, *b; } bin; /* AE_BINOP, AE_BOOLOP */
    struct { tl__ast_expr *a; } un;
    struct { uint32_t n; uint8_t *ops; tl__ast_expr **operands; } cmp; /* n ops, n + 1 operands */
    struct { tl__ast_expr *cond, *t, *f; } ifexp;
    /* lambda a, b=1: body (defaults may be NULL) */
    struct { uint32_t n; const char **names; tl__ast_expr **dflts; tl__ast_expr *body; } lambda;
    struct { tl__ast_expr *elt; uint32_t n; tl__ast_comp_clause *clauses; } comp;
  } u;
};

typedef enum tl__ast_skind {
  AS_EXPR, AS_ASSIGN, AS_ANNASSIGN, AS_AUGASSIGN, AS_PASS, AS_RETURN, AS_OPAQUE, AS_RAISE,
  AS_IF, AS_FOR, AS_WITH, AS_DEF, AS_IMPORT, AS_FROM, AS_ASSERT,
  AS_WHILE, AS_BREAK, AS_CONTINUE /* while: u.if_ (cond, body; orelse empty) */
} tl__ast_skind;

typedef struct tl__ast_stmt tl__ast_stmt;
typedef struct tl__ast_block {
  uint32_t n;
  tl__ast_stmt **stmts;
} tl__ast_block;

typedef struct tl__ast_param {
  const char *name;
  uint32_t line, col;
  tl__ast_expr *ann;  /* may be NULL */
  tl__ast_expr *dflt; /* may be NULL */
  uint8_t star;       /* TL__PARAM_PLAIN, TL__PARAM_VARARGS (*args), TL__PARAM_VARKW (**kwargs) */
  bool kwonly;        /* after a bare `*` or *args: given only by keyword */
} tl__ast_param;
enum { TL__PARAM_PLAIN, TL__PARAM_VARARGS, TL__PARAM_VARKW };

typedef struct tl__ast_alias {
  const char *name;   /* dotted module name or imported name */
  const char *asname; /* NULL when absent */
  uint32_t line, col;
} tl__ast_alias;

struct tl__ast_stmt {
  uint8_t kind; /* tl__ast_skind */
  uint8_t op;   /* AS_AUGASSIGN: the tl__ast_op */
  uint32_t line, col;
  union {
    struct { tl__ast_expr *e; } expr;
    /* AS_ASSIGN (target = value), AS_ANNASSIGN (target: ann [= value]), AS_AUGASSIGN */
    struct { tl__ast_expr *target, *value, *ann; } assign;
    struct { tl__ast_expr *value; } ret; /* value may be NULL; AS_RAISE: the exception */
    struct { tl__ast_expr *test, *msg; } assert_; /* msg may be NULL */
    struct { tl__ast_expr *cond; tl__ast_block body, orelse; } if_; /* elif: orelse holds one AS_IF */
    struct { tl__ast_expr *target, *iter; tl__ast_block body; } for_;
    struct { tl__ast_expr *ctx, *target; tl__ast_block body; } with; /* target may be NULL */
    struct {
      const char *name;
      uint32_t nparams, ndeco;
      tl__ast_param *params;
      tl__ast_expr **decos;
      tl__ast_block body;
      bool skipped; /* a top-level helper the front end does not read (body empty) */
      /* A kernel-like top-level def (a prim_func/jit decorator line or a nested
       * @prim_func) whose text is outside the subset: skipped, with the error it
       * gave, reported only if the definition turns out to be one of ours and is
       * elaborated. decos then hold the decorators' dotted names only. */
      const char *deferred;
      bool nested_kernel; /* the body has a @...prim_func decorator line */
      /* A top-level helper (neither kernel nor factory). Parsed when its text is in
       * the subset (then callable from kernels); else skipped, with why: the first
       * line of the error it gave. */
      bool helper;
      const char *why;
    } def;
    /* A top-level statement outside the subset, left unread: the names it may bind
     * (assignment targets, imports, class/def names; found token by token) become
     * opaque, so a kernel using one fails naming it. why: the first line of the
     * error the statement gave. */
    struct { const char *why; uint32_t n; const char **names; } opaque;
    struct { uint32_t n; tl__ast_alias *names; } import;
    /* module: dotted, with leading dots when relative; star: `from m import *` */
    struct { const char *module; uint32_t n; tl__ast_alias *names; bool star; } from;
  } u;
};

/* Parses a whole file into its top-level block. Top-level functions that are
 * neither kernels nor factories and the `if __name__ == "__main__":` block are
 * skipped token by token; other top-level statements outside the subset become
 * AS_OPAQUE, kernel-like definitions outside it deferred (see docs/frontend.md). */
tl_status tl__parse_file(tl__parse_ctx *p, const tl__tok *toks, size_t ntoks, tl__ast_block *out);
/* Parses a single expression (the whole token list, which must end there). */
tl_status tl__parse_expr_only(tl__parse_ctx *p, const tl__tok *toks, size_t ntoks, tl__ast_expr **out);
/* Structural equality of two expressions (positions ignored). */
bool tl__ast_expr_equal(const tl__ast_expr *a, const tl__ast_expr *b);

/* ------------------------------------------------------------------ elaboration */

/* Elaborates a parsed file into mod (one function per kernel, factory and jit function). */
tl_status tl__elab_module(tl__parse_ctx *p, const tl__ast_block *file, const tl_ir_parse_options *opts,
                          tl_ir_module *mod);

#endif
