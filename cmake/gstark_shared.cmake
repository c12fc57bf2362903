# BUILD_SHARED_LIBS=ON: libgstark.so and gstark_internal, both from the objects
# of gstark_objects (and gstark_cuda when CUDA is built); included by
# CMakeLists.txt.
#
# The shared library exports exactly the functions include/gstark/*.h declares:
# cmake/gs_public_symbols.cmake lists them (after the C preprocessor, so what a
# C user of the headers sees) into a GNU ld version script that makes every
# other symbol local. It is regenerated whenever a public header changes.
# tests/symbols_test.sh checks the result with nm.
#
# gstark_internal is a static archive of the same objects for tests and
# benchmarks, which include src/ headers and call internal functions; the CLI
# and the examples use the public API only and link the shared library.

include(${CMAKE_CURRENT_LIST_DIR}/gs_cxx_runtime.cmake)
set_target_properties(gstark_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
set(GS_SHARED_OBJECTS $<TARGET_OBJECTS:gstark_objects>)
if(GS_HAVE_CUDA)
  set_target_properties(gstark_cuda PROPERTIES POSITION_INDEPENDENT_CODE ON)
  list(APPEND GS_SHARED_OBJECTS $<TARGET_OBJECTS:gstark_cuda>)
endif()

# The public API as a symbol list (gstark.syms) and a version script (gstark.map).
set(GS_SYMBOLS_LIST ${CMAKE_CURRENT_BINARY_DIR}/gstark.syms)
set(GS_SYMBOLS_MAP ${CMAKE_CURRENT_BINARY_DIR}/gstark.map)
file(GLOB GS_SYMBOLS_HEADERS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/gstark/*.h)
add_custom_command(
  OUTPUT ${GS_SYMBOLS_LIST} ${GS_SYMBOLS_MAP}
  COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER}
          -DINCLUDE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/include
          -DOUT_LIST=${GS_SYMBOLS_LIST} -DOUT_MAP=${GS_SYMBOLS_MAP}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/gs_public_symbols.cmake
  DEPENDS ${GS_SYMBOLS_HEADERS} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/gs_public_symbols.cmake
  COMMENT "Listing the public API of include/gstark/*.h"
  VERBATIM)
add_custom_target(gstark_symbols DEPENDS ${GS_SYMBOLS_LIST} ${GS_SYMBOLS_MAP})

add_library(gstark SHARED ${GS_SHARED_OBJECTS})
add_dependencies(gstark gstark_symbols)
# Before 1.0 every minor version may change the ABI, so the soname carries it.
set_target_properties(gstark PROPERTIES
  LINKER_LANGUAGE C
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LINK_DEPENDS ${GS_SYMBOLS_MAP})
target_include_directories(gstark PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
target_link_options(gstark PRIVATE "LINKER:--version-script=${GS_SYMBOLS_MAP}" "LINKER:--no-undefined")
target_link_libraries(gstark PRIVATE Threads::Threads m)
if(GS_HAVE_CUDA)
  # The CUDA objects are host C++ (nvcc): the C linker needs the C++ runtime.
  target_link_libraries(gstark PRIVATE CUDA::cudart ${GS_CXX_RUNTIME})
endif()

add_library(gstark_internal STATIC ${GS_SHARED_OBJECTS})
set_target_properties(gstark_internal PROPERTIES LINKER_LANGUAGE C)
# Linked directly, an object library would add its objects again; only its
# usage requirements (include directories, Threads, m, CUDA::cudart) are wanted.
target_include_directories(gstark_internal PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(gstark_internal PUBLIC Threads::Threads m)
if(GS_HAVE_CUDA)
  target_link_libraries(gstark_internal PUBLIC CUDA::cudart ${GS_CXX_RUNTIME})
endif()
