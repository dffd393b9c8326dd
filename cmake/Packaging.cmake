# CPack: a .deb for the Debian release it is built on and a relocatable .tar.gz, from the install
# rules.
#   cmake --build <build> --target package     (both), or cpack -G DEB|TGZ in <build>.
set(CPACK_PACKAGE_NAME code-sandbox)
set(CPACK_PACKAGE_VENDOR "The Code Sandbox developers")
set(CPACK_PACKAGE_CONTACT "The Code Sandbox developers <code-sandbox@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_GENERATOR DEB TGZ)
set(CPACK_SOURCE_GENERATOR "")
# RelWithDebInfo builds carry debug information that users never need.
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
# The tarball unpacks into code-sandbox-<version>-Linux/{bin,libexec,share}: the programs find
# their launcher and image recipes relative to bin/, so it runs from wherever it is unpacked.
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)

# A .deb depends on the library packages of the release it was built on (dpkg-shlibdeps), which
# another release may not have (Debian 12's libyaml-cpp0.7 is libyaml-cpp0.8 in Debian 13): its
# version names that release the way Debian's own backports do, code-sandbox_<version>~deb12 and
# ~deb13.
set(csm_release_default "")
if(EXISTS /etc/os-release)
    file(STRINGS /etc/os-release csm_os_release REGEX "^(ID|VERSION_ID)=")
    set(csm_os_id "")
    set(csm_os_version "")
    foreach(line IN LISTS csm_os_release)
        if(line MATCHES "^ID=\"?([^\"]*)\"?$")
            set(csm_os_id ${CMAKE_MATCH_1})
        elseif(line MATCHES "^VERSION_ID=\"?([^\"]*)\"?$")
            set(csm_os_version ${CMAKE_MATCH_1})
        endif()
    endforeach()
    if(csm_os_id STREQUAL "debian" AND csm_os_version MATCHES "^[0-9]+$")
        set(csm_release_default "deb${csm_os_version}")
    endif()
endif()
# Found again at each configure (a build folder may outlive a dist-upgrade); set it to override.
set(CSM_PACKAGE_RELEASE "" CACHE STRING
    "the Debian release the .deb is for, in its version: deb12, deb13 (empty: this machine's)")
set(csm_release ${CSM_PACKAGE_RELEASE})
if(NOT csm_release)
    set(csm_release ${csm_release_default})
endif()
if(csm_release)
    set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}~${csm_release}")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${PROJECT_DESCRIPTION}
 Code Sandbox lets AI assistants (Claude Desktop, Gemini CLI, VS Code, Cursor and
 any other MCP client) run Python and JavaScript safely: every call runs in a
 fresh, locked-down Podman or Docker container that is removed afterwards.
 .
 This package holds the MCP server code-sandbox-mcp, the desktop app
 code-sandbox-desktop (live run history, approvals, images, secrets, server
 and client set-up) and the offline builder of the sandbox images.")
# Libraries the programs link come from dpkg-shlibdeps (dpkg-dev); what Qt and QtKeychain load
# at run time is invisible to it and listed here: the run history's SQLite driver and the
# Secret Service client library. (The xcb and offscreen platform plugins ship in libqt6gui6.)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-sqlite, libsecret-1-0")
# A container engine runs the sandboxes and debootstrap builds their images; either engine
# will do, and a machine may get its engine elsewhere, so neither is a hard dependency.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "podman | docker.io, debootstrap, qt6-wayland")
# A Secret Service for the keychain where none runs yet; gVisor for --isolation gvisor.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnome-keyring, runsc")

include(CPack)
