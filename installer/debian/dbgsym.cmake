# SPDX-License-Identifier: GPL-3.0-or-later
# A CPack post-build script (CPACK_POST_BUILD_SCRIPTS, installer/CMakeLists.txt): the debug symbols of
# the binary the .deb ships stripped, packaged as Debian packages them, beside it:
#   slicescope-dbgsym_VERSION_ARCH.deb   /usr/lib/debug/.build-id/NN/REST.debug (gdb finds it by the
#                                        binary's build id) and /usr/share/doc/slicescope-dbgsym, a
#                                        link to slicescope's (its copyright and changelog), as dh
#                                        makes them
# CPack's own CPACK_DEBIAN_DEBUGINFO_PACKAGE (CMake 3.25) puts build-machine paths in that package's
# md5sums and no doc link, which lintian reports as errors. The debug sections stay uncompressed:
# xz packs them to a quarter or less, a third smaller than zlib-compressed sections come out.

include("${CPACK_SLICESCOPE_DBGSYM_INPUT}") # slicescope_unstripped: the binary as built, before strip
set(deb "")
foreach(file IN LISTS CPACK_PACKAGE_FILES)
  if(file MATCHES "/${CPACK_PACKAGE_NAME}_[^/]*\\.deb$")
    set(deb "${file}")
  endif()
endforeach()
if(NOT deb)
  return() # another generator (TGZ)
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dbgsym: ${ARGN} failed (${rc}): ${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

foreach(field Package Version Architecture Maintainer)
  run(dpkg-deb -f "${deb}" ${field})
  string(STRIP "${out}" ${field})
endforeach()
run(readelf -n "${slicescope_unstripped}")
if(NOT out MATCHES "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)")
  message(FATAL_ERROR "dbgsym: ${slicescope_unstripped} has no build id")
endif()
set(build_id "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
set(debug_file "usr/lib/debug/.build-id/${CMAKE_MATCH_1}/${CMAKE_MATCH_2}.debug")

set(root "${CPACK_TOPLEVEL_DIRECTORY}/${Package}-dbgsym")
file(REMOVE_RECURSE "${root}")
get_filename_component(debug_dir "${root}/${debug_file}" DIRECTORY)
file(MAKE_DIRECTORY "${root}/DEBIAN" "${debug_dir}" "${root}/usr/share/doc")
run(objcopy --only-keep-debug "${slicescope_unstripped}" "${root}/${debug_file}")
file(CHMOD "${root}/${debug_file}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(CREATE_LINK "${Package}" "${root}/usr/share/doc/${Package}-dbgsym" SYMBOLIC)

file(MD5 "${root}/${debug_file}" md5)
file(WRITE "${root}/DEBIAN/md5sums" "${md5}  ${debug_file}\n")
file(SIZE "${root}/${debug_file}" bytes)
math(EXPR kib "(${bytes} + 1023) / 1024 + 4")
file(WRITE "${root}/DEBIAN/control" "Package: ${Package}-dbgsym
Version: ${Version}
Architecture: ${Architecture}
Maintainer: ${Maintainer}
Installed-Size: ${kib}
Depends: ${Package} (= ${Version})
Section: debug
Priority: optional
Auto-Built-Package: debug-symbols
Package-Type: ddeb
Build-Ids: ${build_id}
Description: debug symbols for ${Package}
")
# Where CPack copies the packages it made (this script sees them in its working directory first).
cmake_path(ABSOLUTE_PATH CPACK_OUTPUT_FILE_PREFIX BASE_DIRECTORY "${CPACK_PACKAGE_DIRECTORY}" NORMALIZE OUTPUT_VARIABLE out_dir)
set(dbgsym "${out_dir}/${Package}-dbgsym_${Version}_${Architecture}.deb")
# xz -2: 100 MB of DWARF in 14 s on two cores, 12 % larger than the default -6 (39 s).
run(dpkg-deb --root-owner-group -Zxz -z2 --build "${root}" "${dbgsym}")
message(STATUS "dbgsym: ${dbgsym} generated (build id ${build_id})")
