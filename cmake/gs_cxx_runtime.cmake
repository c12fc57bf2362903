# GS_CXX_RUNTIME: the C++ runtime library the CUDA objects need (nvcc compiles
# their host code as C++: std::call_once, static guards, the personality
# routine), for linking them with the C compiler: in libgstark.so, and for
# users of the static libraries through pkg-config or find_package. Empty
# without CUDA.
if(NOT DEFINED GS_CXX_RUNTIME)
  set(GS_CXX_RUNTIME "")
  if(GS_HAVE_CUDA)
    foreach(lib stdc++ c++)
      if(lib IN_LIST CMAKE_CUDA_IMPLICIT_LINK_LIBRARIES)
        set(GS_CXX_RUNTIME ${lib})
        break()
      endif()
    endforeach()
    if(NOT GS_CXX_RUNTIME)
      set(GS_CXX_RUNTIME stdc++)
    endif()
  endif()
endif()
