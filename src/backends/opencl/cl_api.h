/* The part of the OpenCL 1.2 API the opencl plugin uses, declared here (types,
 * constants and function types, values from the Khronos specification) so the
 * plugin builds without OpenCL headers, and opened at run time with dlopen from the
 * ICD loader libOpenCL.so.1 (cl_api.c): nothing links against OpenCL. */
#ifndef TLP_OPENCL_CL_API_H
#define TLP_OPENCL_CL_API_H

#include <stddef.h>
#include <stdint.h>

#include "tilelang/plugin.h"

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;
typedef cl_bitfield cl_device_type;
typedef cl_bitfield cl_mem_flags;
typedef cl_bitfield cl_map_flags;
typedef cl_bitfield cl_command_queue_properties;
typedef cl_bitfield cl_device_fp_config;
typedef cl_uint cl_platform_info;
typedef cl_uint cl_device_info;
typedef cl_uint cl_program_info;
typedef cl_uint cl_program_build_info;
typedef cl_uint cl_buffer_create_type;
typedef intptr_t cl_context_properties;

typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

typedef struct cl_buffer_region {
  size_t origin;
  size_t size;
} cl_buffer_region;

#define CL_SUCCESS 0
#define CL_DEVICE_NOT_FOUND (-1)
#define CL_BUILD_PROGRAM_FAILURE (-11)
#define CL_PLATFORM_NOT_FOUND_KHR (-1001)
#define CL_TRUE 1u
#define CL_FALSE 0u

#define CL_PLATFORM_VERSION 0x0901u
#define CL_PLATFORM_NAME 0x0902u
#define CL_PLATFORM_VENDOR 0x0903u
#define CL_DEVICE_TYPE 0x1000u
#define CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004u
#define CL_DEVICE_SINGLE_FP_CONFIG 0x101Bu
#define CL_DEVICE_MEM_BASE_ADDR_ALIGN 0x1019u
#define CL_DEVICE_LOCAL_MEM_SIZE 0x1023u
#define CL_DEVICE_NAME 0x102Bu
#define CL_DEVICE_VENDOR 0x102Cu
#define CL_DRIVER_VERSION 0x102Du
#define CL_DEVICE_VERSION 0x102Fu
#define CL_DEVICE_EXTENSIONS 0x1030u
#define CL_DEVICE_OPENCL_C_VERSION 0x103Du
#define CL_DEVICE_TYPE_GPU ((cl_device_type)1 << 2)
#define CL_DEVICE_TYPE_ALL ((cl_device_type)0xFFFFFFFFu)
#define CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT ((cl_device_fp_config)1 << 7)
#define CL_CONTEXT_PLATFORM 0x1084
#define CL_MEM_READ_WRITE ((cl_mem_flags)1 << 0)
#define CL_MEM_USE_HOST_PTR ((cl_mem_flags)1 << 3)
#define CL_MAP_READ ((cl_map_flags)1 << 0)
#define CL_MAP_WRITE ((cl_map_flags)1 << 1)
#define CL_BUFFER_CREATE_TYPE_REGION 0x1220u
#define CL_MEM_SIZE 0x1102u
#define CL_PROGRAM_BINARY_SIZES 0x1165u
#define CL_PROGRAM_BINARIES 0x1166u
#define CL_PROGRAM_BUILD_LOG 0x1183u

/* X(name, return type, parameters): every function the plugin calls. */
#define TLP_CL_FUNCS(X)                                                                                             \
  X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id *, cl_uint *))                                              \
  X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_platform_info, size_t, void *, size_t *))                       \
  X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))                  \
  X(clGetDeviceInfo, cl_int, (cl_device_id, cl_device_info, size_t, void *, size_t *))                             \
  X(clCreateContext, cl_context,                                                                                    \
    (const cl_context_properties *, cl_uint, const cl_device_id *,                                                  \
     void (*)(const char *, const void *, size_t, void *), void *, cl_int *))                                      \
  X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, cl_command_queue_properties, cl_int *))     \
  X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char **, const size_t *, cl_int *))          \
  X(clCreateProgramWithBinary, cl_program,                                                                          \
    (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **, cl_int *, cl_int *))       \
  X(clBuildProgram, cl_int,                                                                                         \
    (cl_program, cl_uint, const cl_device_id *, const char *, void (*)(cl_program, void *), void *))                \
  X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *))    \
  X(clGetProgramInfo, cl_int, (cl_program, cl_program_info, size_t, void *, size_t *))                             \
  X(clReleaseProgram, cl_int, (cl_program))                                                                         \
  X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *))                                               \
  X(clReleaseKernel, cl_int, (cl_kernel))                                                                           \
  X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void *))                                            \
  X(clCreateBuffer, cl_mem, (cl_context, cl_mem_flags, size_t, void *, cl_int *))                                  \
  X(clCreateSubBuffer, cl_mem, (cl_mem, cl_mem_flags, cl_buffer_create_type, const void *, cl_int *))              \
  X(clGetMemObjectInfo, cl_int, (cl_mem, cl_uint, size_t, void *, size_t *))                                       \
  X(clReleaseMemObject, cl_int, (cl_mem))                                                                           \
  X(clEnqueueNDRangeKernel, cl_int,                                                                                 \
    (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint,                 \
     const cl_event *, cl_event *))                                                                                 \
  X(clEnqueueMapBuffer, void *,                                                                                     \
    (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event *, cl_event *,        \
     cl_int *))                                                                                                     \
  X(clEnqueueUnmapMemObject, cl_int, (cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *))   \
  X(clWaitForEvents, cl_int, (cl_uint, const cl_event *))                                                          \
  X(clReleaseEvent, cl_int, (cl_event))                                                                             \
  X(clFinish, cl_int, (cl_command_queue))

typedef struct tlp_cl {
#define TLP_CL_FIELD(name, ret, params) ret(*name) params;
  TLP_CL_FUNCS(TLP_CL_FIELD)
#undef TLP_CL_FIELD
} tlp_cl;

/* The symbol table of the ICD loader (libOpenCL.so.1, or TL_OPENCL_LIBRARY), opened
 * once per process: all or nothing. NULL when it cannot be opened or lacks a
 * symbol; `why` (static storage) then says which. Thread-safe. */
const tlp_cl *tlp_cl_api(const char **why);

/* "CL_INVALID_WORK_GROUP_SIZE" for -54; "CL error" for codes it does not know. */
const char *tlp_cl_error_name(cl_int err);

#endif
