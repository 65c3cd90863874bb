# Work-arounds for Debian 12's HIP (ROCm 5.2) with CMake 3.25, applied before enable_language(HIP).
#  1. /usr/bin/clang++ is clang-14; Debian's HIP needs clang++-15.
#  2. CMake looks for <ROCM_ROOT>/lib/cmake/hip-lang only; Debian installs it under the multiarch
#     directory, so a symlink shim in the build directory stands in as the ROCm root.
#  3. clang needs --rocm-path=/usr and the multiarch device-library path.
if(NOT DEFINED CMAKE_HIP_COMPILER AND EXISTS /usr/bin/clang++-15)
  set(CMAKE_HIP_COMPILER /usr/bin/clang++-15)
endif()
set(_eddy_deb_cm /usr/lib/x86_64-linux-gnu/cmake)
if(NOT DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT AND EXISTS ${_eddy_deb_cm}/hip-lang
   AND NOT EXISTS /usr/lib/cmake/hip-lang)
  set(_eddy_shim ${CMAKE_BINARY_DIR}/rocm-shim)
  file(MAKE_DIRECTORY ${_eddy_shim}/lib/cmake)
  foreach(_p hip-lang amd_comgr)
    if(NOT EXISTS ${_eddy_shim}/lib/cmake/${_p})
      file(CREATE_LINK ${_eddy_deb_cm}/${_p} ${_eddy_shim}/lib/cmake/${_p} SYMBOLIC)
    endif()
  endforeach()
  set(CMAKE_HIP_COMPILER_ROCM_ROOT ${_eddy_shim})
  set(ENV{CMAKE_PREFIX_PATH} "${_eddy_shim}:$ENV{CMAKE_PREFIX_PATH}")
  set(CMAKE_HIP_FLAGS
      "${CMAKE_HIP_FLAGS} --rocm-path=/usr --hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")
endif()
