# HIP on NVIDIA's platform (-DCMAKE_HIP_PLATFORM=nvidia): nvcc compiles the HIP sources, HIP's headers
# map the HIP API onto CUDA. Applied before enable_language(HIP).
#  1. CMake supports HIP with nvcc from 3.28 on.
#  2. HIP's headers for this platform (hip/hip_runtime.h and hip/nvidia_detail/, from ROCm's HIP and
#     hipother repositories) come from EDDY_HIP_INCLUDE_DIR, else $HIP_PATH/include, else
#     /opt/rocm/include. CMake takes the HIP "ROCm root" as <root>/include for its standard include
#     directory; it is set to the parent of that directory, so that CMake does not ask hipconfig, which
#     on a machine with AMD's HIP (Debian's hipcc) names /usr and its AMD headers.
#  3. nvcc is looked for on PATH, then in $CUDA_PATH/bin and /usr/local/cuda/bin.
if(CMAKE_VERSION VERSION_LESS 3.28)
  message(FATAL_ERROR "eddy: HIP on NVIDIA's platform (CMAKE_HIP_PLATFORM=nvidia) needs CMake 3.28 or "
                      "newer (this is ${CMAKE_VERSION}): pip install cmake, or use EDDY_BACKEND=CUDA")
endif()

set(EDDY_HIP_INCLUDE_DIR "" CACHE PATH
    "HIP on NVIDIA: the directory holding hip/hip_runtime.h and hip/nvidia_detail/ (default: $HIP_PATH/include, /opt/rocm/include)")
if(NOT EDDY_HIP_INCLUDE_DIR)
  foreach(_eddy_dir "$ENV{HIP_PATH}/include" /opt/rocm/include)
    if(EXISTS "${_eddy_dir}/hip/nvidia_detail/nvidia_hip_runtime.h")
      set(EDDY_HIP_INCLUDE_DIR "${_eddy_dir}" CACHE PATH "HIP on NVIDIA: HIP's headers" FORCE)
      break()
    endif()
  endforeach()
endif()
if(NOT EXISTS "${EDDY_HIP_INCLUDE_DIR}/hip/hip_runtime.h" OR
   NOT EXISTS "${EDDY_HIP_INCLUDE_DIR}/hip/nvidia_detail/nvidia_hip_runtime.h")
  message(FATAL_ERROR "eddy: HIP on NVIDIA's platform needs HIP's headers for it: give "
                      "-DEDDY_HIP_INCLUDE_DIR=<dir> holding hip/hip_runtime.h (ROCm's HIP repository, "
                      "include/), hip/hip_version.h and hip/nvidia_detail/ (ROCm's hipother repository, "
                      "hipnv/include/hip/nvidia_detail); got '${EDDY_HIP_INCLUDE_DIR}'")
endif()
get_filename_component(EDDY_HIP_INCLUDE_DIR "${EDDY_HIP_INCLUDE_DIR}" ABSOLUTE)
if(NOT DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT)
  get_filename_component(CMAKE_HIP_COMPILER_ROCM_ROOT "${EDDY_HIP_INCLUDE_DIR}" DIRECTORY)
endif()

if(NOT DEFINED CMAKE_HIP_COMPILER AND "$ENV{HIPCXX}" STREQUAL "")
  find_program(EDDY_NVCC nvcc HINTS "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin)
  if(EDDY_NVCC)
    set(CMAKE_HIP_COMPILER "${EDDY_NVCC}")
  endif()
endif()
