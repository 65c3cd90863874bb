# Work-arounds for Debian 12's HIP (ROCm 5.2) with CMake 3.25, applied before enable_language(HIP).
#  1. /usr/bin/clang++ is clang-14; Debian's HIP needs clang++-15.
#  2. CMake looks for <ROCM_ROOT>/lib/cmake/hip-lang only; Debian installs it under the multiarch
#     directory, so a symlink shim in the build directory stands in as the ROCm root.
#  3. clang needs --rocm-path=/usr and the multiarch device-library path.
#  4. ROCm 5.2's device libraries stop at gfx940: for a newer target (gfx942, MI300A/X), which only a newer
#     clang knows (Debian 12's clang-19: -DCMAKE_HIP_COMPILER=/usr/bin/clang++-19), the build directory
#     gets a device-library directory of links to Debian's bitcode plus the one file that differs per
#     target, oclc_isa_version_<N>.bc (a single constant, __oclc_ISA_version), made from gfx940's with
#     the number changed by that clang's llvm-dis and llvm-as. The ocml/ockl code is ROCm 5.2's, so such a
#     build checks eddy's code against the compiler's front end and the target's code generation, not
#     against a ROCm that supports the target (which a cluster's ROCm module provides). clang 17 and
#     newer also get HIP's headers through a directory of their own (--hip-path; below).

# _eddy_hip_isa_library(<isa> <var>): a device-library directory in the build tree for gfx<isa> (work-around 4),
# its path in <var>.
function(_eddy_hip_isa_library isa var)
  set(src /usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
  set(dir ${CMAKE_BINARY_DIR}/amdgcn-bitcode)
  get_filename_component(bin "${CMAKE_HIP_COMPILER}" DIRECTORY)
  string(REGEX MATCH "[0-9]+$" ver "${CMAKE_HIP_COMPILER}")
  find_program(_eddy_llvm_dis NAMES llvm-dis-${ver} llvm-dis HINTS ${bin} /usr/lib/llvm-${ver}/bin NO_CACHE)
  find_program(_eddy_llvm_as NAMES llvm-as-${ver} llvm-as HINTS ${bin} /usr/lib/llvm-${ver}/bin NO_CACHE)
  if(NOT _eddy_llvm_dis OR NOT _eddy_llvm_as)
    message(FATAL_ERROR "CMAKE_HIP_ARCHITECTURES has gfx${isa}, for which ROCm 5.2 (Debian 12) has no device "
                        "library; making one needs llvm-dis and llvm-as of ${CMAKE_HIP_COMPILER} (apt install "
                        "llvm-${ver}), or use a ROCm that supports gfx${isa} (-DCMAKE_HIP_COMPILER_ROCM_ROOT=...)")
  endif()
  file(MAKE_DIRECTORY ${dir})
  file(GLOB bitcode ${src}/*.bc)
  foreach(f IN LISTS bitcode)
    get_filename_component(name ${f} NAME)
    if(NOT EXISTS ${dir}/${name})
      file(CREATE_LINK ${f} ${dir}/${name} SYMBOLIC)
    endif()
  endforeach()
  if(NOT EXISTS ${dir}/oclc_isa_version_${isa}.bc)
    execute_process(COMMAND ${_eddy_llvm_dis} -o - ${src}/oclc_isa_version_940.bc
                    OUTPUT_VARIABLE ir RESULT_VARIABLE rc)
    # gfx94N is ISA version 9.4.N, the constant 940N
    string(SUBSTRING "${isa}" 2 1 minor)
    string(REPLACE "constant i32 9400" "constant i32 940${minor}" ir "${ir}")
    if(NOT rc EQUAL 0 OR NOT ir MATCHES "i32 940${minor}")
      message(FATAL_ERROR "could not derive oclc_isa_version_${isa}.bc from ${src}/oclc_isa_version_940.bc")
    endif()
    file(WRITE ${dir}/oclc_isa_version_${isa}.ll "${ir}")
    execute_process(COMMAND ${_eddy_llvm_as} -o ${dir}/oclc_isa_version_${isa}.bc ${dir}/oclc_isa_version_${isa}.ll
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "llvm-as failed on ${dir}/oclc_isa_version_${isa}.ll")
    endif()
  endif()
  set(${var} ${dir} PARENT_SCOPE)
endfunction()

if(NOT DEFINED CMAKE_HIP_COMPILER AND EXISTS /usr/bin/clang++-15)
  set(CMAKE_HIP_COMPILER /usr/bin/clang++-15)
endif()
# clang bundles a HIP object's host and device code with clang-offload-bundler from its own directory or
# PATH (Debian: clang-tools-<N>); without it CMake's identification of the compiler fails silently and
# every HIP object is compiled as plain C++. Say so here instead.
if(CMAKE_HIP_COMPILER MATCHES "clang")
  get_filename_component(_eddy_hip_real "${CMAKE_HIP_COMPILER}" REALPATH)
  get_filename_component(_eddy_hip_bin "${_eddy_hip_real}" DIRECTORY)
  string(REGEX MATCH "[0-9]+$" _eddy_hip_ver "${CMAKE_HIP_COMPILER}")
  find_program(_eddy_bundler NAMES clang-offload-bundler HINTS ${_eddy_hip_bin} NO_CACHE)
  if(NOT _eddy_bundler)
    message(FATAL_ERROR "${CMAKE_HIP_COMPILER} has no clang-offload-bundler beside it (${_eddy_hip_bin}) or on PATH, "
                        "which it needs to build HIP objects: apt install clang-tools-${_eddy_hip_ver} "
                        "(scripts/install-deps.sh with WITH_HIP=1 does)")
  endif()
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
  set(_eddy_devlib /usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
  foreach(_arch IN LISTS CMAKE_HIP_ARCHITECTURES)
    string(REGEX REPLACE "^gfx([0-9a-f]+).*" "\\1" _isa "${_arch}")
    if(EXISTS ${_eddy_devlib}/oclc_isa_version_940.bc AND NOT EXISTS ${_eddy_devlib}/oclc_isa_version_${_isa}.bc
       AND _isa MATCHES "^94[0-9]$")
      _eddy_hip_isa_library(${_isa} _eddy_devlib)
    endif()
  endforeach()
  set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} --rocm-path=/usr --hip-device-lib-path=${_eddy_devlib}")
  if(CMAKE_HIP_COMPILER MATCHES "clang\\+\\+-(1[7-9]|[2-9][0-9])$")
    # clang 17 and newer put the HIP include path (<rocm-path>/include, here /usr/include) on -isystem,
    # ahead of libstdc++'s headers, whose #include_next <math.h> then finds nothing: HIP's headers
    # come from a directory of their own (--hip-path), /usr/include stays where the system has it.
    file(MAKE_DIRECTORY ${_eddy_shim}/hip/include)
    if(NOT EXISTS ${_eddy_shim}/hip/include/hip)
      file(CREATE_LINK /usr/include/hip ${_eddy_shim}/hip/include/hip SYMBOLIC)
    endif()
    set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} --hip-path=${_eddy_shim}/hip")
  endif()
endif()
