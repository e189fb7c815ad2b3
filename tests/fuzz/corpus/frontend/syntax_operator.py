import tilelang.language as T

x = 1 +* 2
