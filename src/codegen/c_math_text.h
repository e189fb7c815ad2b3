/* Vectorizable math helper sections of the C dialect (c_math_text.c). */
#ifndef TL_CODEGEN_C_MATH_TEXT_H
#define TL_CODEGEN_C_MATH_TEXT_H

/* Section "exp2": float tl_exp2f(float), branch-free 2^x within 1e-7 relative. */
extern const char tl__c_text_exp2[];
/* Section "exp": tl_expf, e^x within 1e-7 relative, vectorizable. */
extern const char tl__c_text_exp[];

#endif
