import tilelang
from tilelang.carver import arch  # noqa: F401  (upstream's; not provided)
