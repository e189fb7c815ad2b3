/* Helpers shared by structural equality (equal.c) and hashing (equal_hash.c). */
#ifndef TL_IR_EQUAL_H
#define TL_IR_EQUAL_H

#include "tilelang/ir.h"

/* Float constants: bitwise (so -0.0 != 0.0), except that all NaNs are equal. */
bool tl__ir_float_bits_equal(double a, double b);
/* Attribute lists as sets keyed by attribute name. */
bool tl__ir_attrs_equal(const tl_ir_attr *a, size_t na, const tl_ir_attr *b, size_t nb);

#endif
