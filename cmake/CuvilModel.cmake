# cuvil_add_model: compile an ONNX model as part of a CMake build.
#
#   cuvil_add_model(NAME MODEL model.onnx
#                   [EXECUTABLE | LIBRARY | SHARED]       (default EXECUTABLE)
#                   [SHAPES input=1x3x224x224 ...]        (--shape)
#                   [SHAPE_RANGES input=1x8:1x128:4x512 ...] (--shape-range)
#                   [CPU x86-64-v3] [TARGET x86_64-linux]
#                   [PRECISION int8 CALIBRATION calib/]    (--precision, --calibration)
#                   [OPTIONS --no-winograd ...])           (any other compile option)
#
# EXECUTABLE builds ${CMAKE_CURRENT_BINARY_DIR}/NAME.bin (an infer.bin)
# under the target NAME, with the imported executable NAME::infer to run it.
# LIBRARY / SHARED build libNAME.a / libNAME.so and NAME.h and make NAME an
# imported library to link: target_link_libraries(app PRIVATE NAME) gives
# the header's directory and the library (with pthreads and libm).
# The compile reruns when the model or any of its external data files
# changes (cuvil writes them to a depfile, with the calibration set's
# files), or when cuvil itself does.
# The compiler is CUVIL_EXECUTABLE, which find_package(Cuvil) sets.
include_guard(GLOBAL)

function(cuvil_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXECUTABLE;LIBRARY;SHARED"
                        "MODEL;CPU;TARGET;PRECISION;CALIBRATION" "SHAPES;SHAPE_RANGES;OPTIONS")
  if(NOT arg_MODEL)
    message(FATAL_ERROR "cuvil_add_model(${name}): MODEL is required")
  endif()
  if(NOT CUVIL_EXECUTABLE)
    message(FATAL_ERROR "cuvil_add_model(${name}): CUVIL_EXECUTABLE is not set "
                        "(find_package(Cuvil) sets it)")
  endif()
  get_filename_component(model "${arg_MODEL}" ABSOLUTE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR})
  set(args compile --input ${model} --quiet --depfile ${dir}/${name}.d)
  foreach(shape IN LISTS arg_SHAPES)
    list(APPEND args --shape ${shape})
  endforeach()
  foreach(range IN LISTS arg_SHAPE_RANGES)
    list(APPEND args --shape-range ${range})
  endforeach()
  if(arg_CPU)
    list(APPEND args --cpu ${arg_CPU})
  endif()
  if(arg_TARGET)
    list(APPEND args --target ${arg_TARGET})
  endif()
  if(arg_PRECISION)
    list(APPEND args --precision ${arg_PRECISION})
  endif()
  if(arg_CALIBRATION)
    get_filename_component(calibration "${arg_CALIBRATION}" ABSOLUTE)
    list(APPEND args --calibration ${calibration})
  endif()
  list(APPEND args ${arg_OPTIONS})

  if(arg_LIBRARY OR arg_SHARED)
    if(arg_SHARED)
      set(library ${dir}/lib${name}.so)
      list(APPEND args --emit shared --output ${dir}/${name})
      set(kind SHARED)
    else()
      set(library ${dir}/lib${name}.a)
      list(APPEND args --emit lib --output ${dir}/${name})
      set(kind STATIC)
    endif()
    set(outputs ${library} ${dir}/${name}.h)
  else()
    set(outputs ${dir}/${name}.bin)
    list(APPEND args --output ${dir}/${name}.bin)
  endif()

  add_custom_command(OUTPUT ${outputs}
                     COMMAND ${CUVIL_EXECUTABLE} ${args}
                     DEPENDS ${model} ${CUVIL_EXECUTABLE}
                     DEPFILE ${dir}/${name}.d
                     COMMENT "cuvil: compiling ${arg_MODEL} (${name})"
                     VERBATIM)
  if(arg_LIBRARY OR arg_SHARED)
    add_custom_target(${name}_compile DEPENDS ${outputs})
    add_library(${name} ${kind} IMPORTED GLOBAL)
    set_target_properties(${name} PROPERTIES IMPORTED_LOCATION ${library}
                          INTERFACE_INCLUDE_DIRECTORIES ${dir})
    if(arg_SHARED)
      set_target_properties(${name} PROPERTIES IMPORTED_SONAME lib${name}.so)
    else()
      find_package(Threads REQUIRED)
      set_target_properties(${name} PROPERTIES INTERFACE_LINK_LIBRARIES "Threads::Threads;m")
    endif()
    add_dependencies(${name} ${name}_compile)
  else()
    add_custom_target(${name} ALL DEPENDS ${outputs})
    add_executable(${name}::infer IMPORTED GLOBAL)
    set_target_properties(${name}::infer PROPERTIES IMPORTED_LOCATION ${dir}/${name}.bin)
    add_dependencies(${name}::infer ${name})
  endif()
endfunction()
