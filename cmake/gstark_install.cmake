# cmake --install: libgstark (and libgstark_cuda in a static CUDA build), the
# public headers, the gstark command, a CMake package (find_package(gstark)
# gives gstark::gstark, carrying its dependencies) and a pkg-config file
# (gstark.pc). Included by CMakeLists.txt after the library and the CLI;
# tests/install_test.sh builds examples/custom_air.c against an installed copy.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/gs_cxx_runtime.cmake)

set(GS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gstark)
add_library(gstark::gstark ALIAS gstark) # the same name in a parent project

# ---- what a user of the installed library links besides libgstark ----
# A static libgstark brings its dependencies along: Threads and libm, and with
# CUDA libgstark_cuda, cudart and the C++ runtime (the build tree links the
# CUDA objects with the host C++ compiler, an installed copy is linked with
# whatever the user links with). A sanitized build needs the sanitizer
# runtime. libgstark.so links all of these itself.
set(GS_EXPORT_TARGETS gstark)
set(GS_PC_LIBS_PRIVATE "")
if(GS_HAVE_CUDA)
  if(NOT BUILD_SHARED_LIBS)
    list(APPEND GS_EXPORT_TARGETS gstark_cuda)
    target_link_libraries(gstark_cuda INTERFACE $<INSTALL_INTERFACE:${GS_CXX_RUNTIME}>)
    string(APPEND GS_PC_LIBS_PRIVATE " -lgstark_cuda")
  endif()
  string(APPEND GS_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart -l${GS_CXX_RUNTIME}")
endif()
if(CMAKE_THREAD_LIBS_INIT)
  string(APPEND GS_PC_LIBS_PRIVATE " ${CMAKE_THREAD_LIBS_INIT}")
endif()
string(APPEND GS_PC_LIBS_PRIVATE " -lcjson -lm") # cJSON: the batch manifest parser
if(GS_SANITIZE)
  target_link_options(gstark INTERFACE $<INSTALL_INTERFACE:-fsanitize=${GS_SANITIZE}>)
  string(APPEND GS_PC_LIBS_PRIVATE " -fsanitize=${GS_SANITIZE}")
endif()
string(STRIP "${GS_PC_LIBS_PRIVATE}" GS_PC_LIBS_PRIVATE)

# ---- the files ----
if(BUILD_SHARED_LIBS)
  # The installed command and library find what they link without
  # LD_LIBRARY_PATH: libgstark.so beside the command's bin/, cudart where it
  # was found at build time.
  file(RELATIVE_PATH GS_BIN_TO_LIB ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(gstark_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${GS_BIN_TO_LIB}")
  set_target_properties(gstark PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()
install(TARGETS ${GS_EXPORT_TARGETS} EXPORT gstarkTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gstark_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/gstark
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# ---- the CMake package ----
if(GS_HAVE_CUDA)
  get_filename_component(GS_CUDA_ROOT ${CUDAToolkit_BIN_DIR} DIRECTORY)
endif()
install(EXPORT gstarkTargets NAMESPACE gstark:: DESTINATION ${GS_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gstarkConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/gstarkConfig.cmake
                              INSTALL_DESTINATION ${GS_INSTALL_CMAKEDIR})
# Before 1.0 a minor version may break the API: 0.1.x satisfies a request for 0.1.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gstarkConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gstarkConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/gstarkConfigVersion.cmake
        DESTINATION ${GS_INSTALL_CMAKEDIR})

# ---- the pkg-config file ----
# Its prefix is the one cmake --install installs to (--prefix included), so it
# is written at install time: configure time fills in everything else and
# leaves @CMAKE_INSTALL_PREFIX@ for the install script.
set(GS_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(GS_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(GS_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gstark.pc.in ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/gstark.pc.in @ONLY)
install(CODE "configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/gstark.pc.in\"
                             \"${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/gstark.pc\" @ONLY)")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/gstark.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
