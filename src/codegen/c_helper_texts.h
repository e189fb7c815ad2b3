/* Helper sections every C-family dialect shares word for word (the C and CUDA
 * dialects, and the defaults of plugin dialects: c_dialect_plain.c). $F is the
 * dialect's function qualifier, $T the element type, $S its suffix. */
#ifndef TL_CODEGEN_C_HELPER_TEXTS_H
#define TL_CODEGEN_C_HELPER_TEXTS_H

/* Python's // and % on signed integers (rounding toward negative infinity), and
 * T.ceildiv. */
extern const char tl__c_text_intdiv[];
extern const char tl__c_text_minmax[];
extern const char tl__c_text_abs[];
/* Minimum and maximum that propagate NaN (as the interpreter's do; fminf does not). */
extern const char tl__c_text_fminmax[];
/* // and % on floats, computed in double as the interpreter does. */
extern const char tl__c_text_fdiv_double[];

#endif
