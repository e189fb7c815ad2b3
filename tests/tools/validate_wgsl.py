"""Validates WGSL files with wgpu-native (naga): each file becomes a shader module
and every @compute entry point a compute pipeline, on whatever adapter wgpu finds
(Mesa's lavapipe on a machine without a GPU). Exit 0: all valid; 1: a file is
rejected (naga's message printed); 77: no adapter (the test is skipped)."""
import re
import sys

try:
    import wgpu
except ImportError as e:  # the venv lacks wgpu
    print(f"skipped: wgpu is not importable ({e}); run scripts/setup-wgpu.sh")
    sys.exit(77)

adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
if adapter is None:
    print("skipped: wgpu found no adapter (install Debian's mesa-vulkan-drivers for lavapipe)")
    sys.exit(77)
features = [f for f in ("shader-f16",) if f in adapter.features]
device = adapter.request_device_sync(required_features=features)
print(f"adapter: {adapter.info['device']} ({adapter.info['backend_type']}), features: {features}")

bad = 0
for path in sys.argv[1:]:
    src = open(path, encoding="utf-8").read()
    if "enable f16;" in src and "shader-f16" not in features:
        print(f"skipped {path}: the adapter lacks shader-f16")
        continue
    try:
        module = device.create_shader_module(code=src)
        entries = re.findall(r"@compute[^\n]*\nfn (\w+)\(", src)
        if not entries:
            raise ValueError("no @compute entry point")
        for entry in entries:
            device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": entry})
        print(f"ok {path} ({', '.join(entries)})")
    except Exception as e:  # naga's diagnostics come as exceptions
        bad += 1
        print(f"FAIL {path}: {e}")
sys.exit(1 if bad else 0)
