/* The tag table. Values for tags marked UPSTREAM are those of TVM's public tag
 * registry (python/tvm/target/tag_registry/cuda.py and metal.py; the Metal host
 * CPUs as in shared/ref/TARGETS.md section 5). TVM's registry has no H200, B200, L4,
 * L40/L40S or RTX 40/50 cards beyond the 4090 and 5060 Ti; those are project
 * additions (ADDED), built with the same template: arch from NVIDIA's compute
 * capability table and TVM's common per-tag values; l2_cache_size_bytes only where
 * TVM gives it for the same die (H200 as H100, B200 as B100). */
#include "tags.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* _register_cuda_tag(name, arch, shared_mem=49152, regs=65536, **extra). */
#define CUDA_TAG(arch, regs, extra)                                                               \
  "{\"kind\":\"cuda\",\"keys\":[\"cuda\",\"gpu\"],\"arch\":\"" arch "\","                          \
  "\"max_shared_memory_per_block\":49152,\"max_threads_per_block\":1024,\"thread_warp_size\":32," \
  "\"registers_per_block\":" #regs extra "}"
#define L2(bytes) ",\"l2_cache_size_bytes\":" #bytes

/* _register_jetson_tag(name, arch, mcpu, num_cores): no keys, an aarch64 llvm host. */
#define JETSON_TAG(arch, mcpu, cores)                                                             \
  "{\"kind\":\"cuda\",\"arch\":\"" arch "\",\"max_shared_memory_per_block\":49152,"               \
  "\"max_threads_per_block\":1024,\"thread_warp_size\":32,\"registers_per_block\":65536,"        \
  "\"host\":{\"kind\":\"llvm\",\"mtriple\":\"aarch64-linux-gnu\",\"mcpu\":\"" mcpu "\","         \
  "\"num-cores\":" #cores "}}"

/* _register_metal_tag(name, max_threads, shared_mem, warp_size) with its host CPU. */
#define METAL_TAG(threads, mcpu)                                                                  \
  "{\"kind\":\"metal\",\"max_threads_per_block\":" #threads ",\"max_shared_memory_per_block\":32768," \
  "\"thread_warp_size\":32,\"host\":{\"kind\":\"llvm\",\"mtriple\":\"arm64-apple-macos\","       \
  "\"mcpu\":\"" mcpu "\"}}"

#define UPSTREAM true
#define ADDED false

static const tl__target_tag tags[] = {
  /* NVIDIA data center */
  {"nvidia/nvidia-b100", CUDA_TAG("sm_100a", 65536, L2(52428800)), UPSTREAM},
  {"nvidia/nvidia-b200", CUDA_TAG("sm_100a", 65536, L2(52428800)), ADDED},
  {"nvidia/nvidia-h100", CUDA_TAG("sm_90a", 65536, L2(52428800)), UPSTREAM},
  {"nvidia/nvidia-h200", CUDA_TAG("sm_90a", 65536, L2(52428800)), ADDED},
  {"nvidia/nvidia-a100", CUDA_TAG("sm_80", 65536, L2(41943040)), UPSTREAM},
  {"nvidia/nvidia-a40", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-a30", CUDA_TAG("sm_80", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-a10", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-a10g", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-a16", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-a2", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-l4", CUDA_TAG("sm_89", 65536, ""), ADDED},
  {"nvidia/nvidia-l40", CUDA_TAG("sm_89", 65536, ""), ADDED},
  {"nvidia/nvidia-l40s", CUDA_TAG("sm_89", 65536, ""), ADDED},
  {"nvidia/nvidia-t4", CUDA_TAG("sm_75", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-v100", CUDA_TAG("sm_70", 65536, ""), UPSTREAM},
  {"nvidia/tesla-p100", CUDA_TAG("sm_60", 65536, ""), UPSTREAM},
  {"nvidia/tesla-p40", CUDA_TAG("sm_61", 65536, ""), UPSTREAM},
  {"nvidia/tesla-p4", CUDA_TAG("sm_61", 65536, ""), UPSTREAM},
  /* NVIDIA professional */
  {"nvidia/rtx-a6000", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  /* GeForce RTX 50 series */
  {"nvidia/geforce-rtx-5090", CUDA_TAG("sm_120", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-5080", CUDA_TAG("sm_120", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-5070-ti", CUDA_TAG("sm_120", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-5070", CUDA_TAG("sm_120", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-5060-ti", CUDA_TAG("sm_120", 65536, L2(33554432)), UPSTREAM},
  /* GeForce RTX 40 series */
  {"nvidia/geforce-rtx-4090", CUDA_TAG("sm_89", 65536, L2(75497472)), UPSTREAM},
  {"nvidia/geforce-rtx-4080", CUDA_TAG("sm_89", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-4070-ti", CUDA_TAG("sm_89", 65536, L2(75497472)), UPSTREAM}, /* TVM's C++ tag table */
  {"nvidia/geforce-rtx-4070", CUDA_TAG("sm_89", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-4060-ti", CUDA_TAG("sm_89", 65536, ""), ADDED},
  {"nvidia/geforce-rtx-4060", CUDA_TAG("sm_89", 65536, ""), ADDED},
  /* GeForce RTX 30 series */
  {"nvidia/geforce-rtx-3090-ti", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-3090", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-3080-ti", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-3080", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-3070-ti", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-3070", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-3060", CUDA_TAG("sm_86", 65536, ""), UPSTREAM},
  /* GeForce RTX 20 series and TITAN */
  {"nvidia/nvidia-titan-rtx", CUDA_TAG("sm_75", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-2080-ti", CUDA_TAG("sm_75", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-2080", CUDA_TAG("sm_75", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-2070", CUDA_TAG("sm_75", 65536, ""), UPSTREAM},
  {"nvidia/geforce-rtx-2060", CUDA_TAG("sm_75", 65536, ""), UPSTREAM},
  {"nvidia/nvidia-titan-v", CUDA_TAG("sm_70", 65536, ""), UPSTREAM},
  /* Jetson */
  {"nvidia/jetson-nano", CUDA_TAG("sm_53", 32768, ""), UPSTREAM},
  {"nvidia/jetson-tx1", CUDA_TAG("sm_53", 32768, ""), UPSTREAM},
  {"nvidia/jetson-tx2", CUDA_TAG("sm_62", 32768, ""), UPSTREAM},
  {"nvidia/tegra-x1", CUDA_TAG("sm_53", 32768, ""), UPSTREAM},
  {"nvidia/jetson-agx-xavier", JETSON_TAG("sm_72", "carmel", 8), UPSTREAM},
  {"nvidia/jetson-orin-nano", JETSON_TAG("sm_87", "carmel", 6), UPSTREAM},
  {"nvidia/jetson-agx-orin-32gb", JETSON_TAG("sm_87", "cortex-a78", 8), UPSTREAM},
  {"nvidia/jetson-agx-orin-64gb", JETSON_TAG("sm_87", "cortex-a78", 12), UPSTREAM},
  /* Apple */
  {"apple/m1-gpu", METAL_TAG(1024, "apple-m1"), UPSTREAM},
  {"apple/m1-gpu-restricted", METAL_TAG(256, "apple-m1"), UPSTREAM},
  {"apple/m2-gpu", METAL_TAG(1024, "apple-m2"), UPSTREAM},
};

#define NTAGS (sizeof tags / sizeof tags[0])

size_t tl__target_tag_count(void) { return NTAGS; }
const tl__target_tag *tl__target_tag_at(size_t i) { return i < NTAGS ? &tags[i] : NULL; }

/* Tag indices sorted by name, built once, for binary search. */
static unsigned short g_sorted[NTAGS];
static pthread_once_t g_sorted_once = PTHREAD_ONCE_INIT;

static int cmp_index(const void *a, const void *b) {
  return strcmp(tags[*(const unsigned short *)a].name, tags[*(const unsigned short *)b].name);
}

static void sort_tags(void) {
  for (size_t i = 0; i < NTAGS; i++) g_sorted[i] = (unsigned short)i;
  qsort(g_sorted, NTAGS, sizeof g_sorted[0], cmp_index);
}

long tl__target_tag_index(const char *name) {
  pthread_once(&g_sorted_once, sort_tags);
  size_t lo = 0, hi = NTAGS;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(tags[g_sorted[mid]].name, name);
    if (c == 0) return g_sorted[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}
