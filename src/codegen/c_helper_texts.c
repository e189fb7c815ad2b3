/* The shared helper sections (c_helper_texts.h). */
#include "codegen/c_helper_texts.h"

const char tl__c_text_intdiv[] =
  "$F $T tl_floordiv_$S($T a, $T b) { $T q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
  "$F $T tl_floormod_$S($T a, $T b) { $T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"
  "$F $T tl_ceildiv_$S($T a, $T b) { $T q = a / b; return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q; }\n";

const char tl__c_text_minmax[] =
  "$F $T tl_min_$S($T a, $T b) { return a < b ? a : b; }\n"
  "$F $T tl_max_$S($T a, $T b) { return a > b ? a : b; }\n";

const char tl__c_text_abs[] = "$F $T tl_abs_$S($T a) { return a < 0 ? ($T)-a : a; }\n";

const char tl__c_text_fminmax[] =
  "$F $T tl_min_$S($T a, $T b) { return (a < b || a != a) ? a : b; }\n"
  "$F $T tl_max_$S($T a, $T b) { return (a > b || a != a) ? a : b; }\n";

const char tl__c_text_fdiv_double[] =
  "$F $T tl_floordiv_$S($T a, $T b) { return ($T)floor((double)a / (double)b); }\n"
  "$F $T tl_floormod_$S($T a, $T b) { return ($T)((double)a - floor((double)a / (double)b) * (double)b); }\n";
