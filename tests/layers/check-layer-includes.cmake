# Fails when a layer's sources include a header of a layer it may not use: one above it, or one
# beside it that it does not link. The build already refuses most of these (a layer's include path
# holds only the layers it links); this catches what the include path cannot, such as a header
# reached through a test's or a generated folder's include root.
#
#   cmake -DLAYERS=<file> -DROOT=<folder> -P check-layer-includes.cmake
# LAYERS: one line per layer, "<name>=<folder>:<dependency>;<dependency>..." (direct dependencies);
# ROOT: the folder the layer folders are relative to.
cmake_minimum_required(VERSION 3.25)

file(STRINGS "${LAYERS}" lines)
set(names "")
foreach(line IN LISTS lines)
    string(REGEX MATCH "^([a-z]+)=([^:]*):(.*)$" ignored "${line}")
    set(name "${CMAKE_MATCH_1}")
    list(APPEND names ${name})
    set(folder_${name} "${CMAKE_MATCH_2}")
    set(direct_${name} "${CMAKE_MATCH_3}")
endforeach()

# What each layer may include: itself and every layer below it, through its dependencies.
function(allowed_layers name out)
    set(result ${name})
    set(pending ${direct_${name}})
    while(pending)
        list(POP_FRONT pending next)
        if(NOT next IN_LIST result)
            list(APPEND result ${next})
            list(APPEND pending ${direct_${next}})
        endif()
    endwhile()
    set(${out} ${result} PARENT_SCOPE)
endfunction()

set(violations 0)
foreach(name IN LISTS names)
    allowed_layers(${name} allowed)
    file(GLOB_RECURSE files LIST_DIRECTORIES false
        "${ROOT}/${folder_${name}}/*.h" "${ROOT}/${folder_${name}}/*.cpp"
        "${ROOT}/${folder_${name}}/*.c" "${ROOT}/${folder_${name}}/*.in")
    foreach(file IN LISTS files)
        file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][a-z]+/")
        foreach(include IN LISTS includes)
            string(REGEX MATCH "include[ \t]*[\"<]([a-z]+)/" ignored "${include}")
            set(target "${CMAKE_MATCH_1}")
            if(target IN_LIST names AND NOT target IN_LIST allowed)
                file(RELATIVE_PATH shown "${ROOT}" "${file}")
                message(SEND_ERROR "${shown}: the ${name} layer includes the ${target} layer "
                    "(${include}); ${name} may use only: ${allowed}")
                math(EXPR violations "${violations} + 1")
            endif()
        endforeach()
    endforeach()
endforeach()

if(violations GREATER 0)
    message(FATAL_ERROR "${violations} include(s) against the layers (docs/architecture.md)")
endif()
list(LENGTH names count)
message(STATUS "${count} layers, no include against them")
