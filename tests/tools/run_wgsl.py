"""Runs WGSL kernels on whatever adapter wgpu finds (Mesa's lavapipe on a machine
without a GPU), for test_webgpu_run: each job directory under the root holds
kernel.wgsl, job.json and in<P>.bin (the bytes of tensor parameter P); the launches
of job.json are dispatched in order (tensors bound in the kernel's order, then the
packed uniform of its scalars), and out<P>.bin gets each tensor's bytes afterwards.
Exit 0: all ran; 1: a job failed (printed); 77: no wgpu or no adapter."""
import json
import os
import sys

try:
    import wgpu
except ImportError as e:
    print(f"skipped: wgpu is not importable ({e}); run scripts/setup-wgpu.sh")
    sys.exit(77)

adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
if adapter is None:
    print("skipped: wgpu found no adapter (install Debian's mesa-vulkan-drivers for lavapipe)")
    sys.exit(77)
features = [f for f in ("shader-f16",) if f in adapter.features]
device = adapter.request_device_sync(required_features=features)
U = wgpu.BufferUsage


def run(job):
    spec = json.load(open(os.path.join(job, "job.json")))
    module = device.create_shader_module(code=open(os.path.join(job, "kernel.wgsl")).read())
    bufs = {}
    for p in spec["tensors"]:
        data = open(os.path.join(job, f"in{p}.bin"), "rb").read()
        size = max(16, (len(data) + 3) // 4 * 4)
        b = device.create_buffer(size=size, usage=U.STORAGE | U.COPY_SRC | U.COPY_DST)
        device.queue.write_buffer(b, 0, data + b"\0" * (size - len(data)))
        bufs[p] = (b, len(data))
    for launch in spec["launches"]:
        if 0 in launch["grid"]:
            continue
        pipeline = device.create_compute_pipeline(layout="auto",
                                                  compute={"module": module, "entry_point": launch["entry"]})
        entries = [{"binding": i, "resource": {"buffer": bufs[p][0], "offset": 0, "size": bufs[p][0].size}}
                   for i, p in enumerate(launch["tensors"])]
        if launch["uniform"]:
            data = bytes.fromhex(launch["uniform"])
            ub = device.create_buffer_with_data(data=data, usage=U.UNIFORM)
            entries.append({"binding": len(entries), "resource": {"buffer": ub, "offset": 0, "size": len(data)}})
        group = device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=entries)
        encoder = device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(pipeline)
        compute.set_bind_group(0, group)
        compute.dispatch_workgroups(*launch["grid"])
        compute.end()
        device.queue.submit([encoder.finish()])
    for p, (b, n) in bufs.items():
        out = device.queue.read_buffer(b)
        open(os.path.join(job, f"out{p}.bin"), "wb").write(bytes(out)[:n])


bad = 0
root = sys.argv[1]
for name in sorted(os.listdir(root)):
    job = os.path.join(root, name)
    try:
        run(job)
        print(f"ran {name}")
    except Exception as e:  # wgpu reports validation and device errors as exceptions
        bad += 1
        print(f"FAIL {name}: {e}")
sys.exit(1 if bad else 0)
