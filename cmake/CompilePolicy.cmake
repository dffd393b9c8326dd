# One INTERFACE target carries the compile policy; every target of the project links it, so no
# directory-scoped include_directories/add_definitions are needed.
add_library(csm_compile_policy INTERFACE)
target_compile_features(csm_compile_policy INTERFACE cxx_std_20)
target_compile_definitions(csm_compile_policy INTERFACE
    QT_NO_CAST_FROM_ASCII
    QT_NO_CAST_TO_ASCII
    QT_NO_CAST_FROM_BYTEARRAY
    QT_USE_QSTRINGBUILDER
    QT_STRICT_ITERATORS
    QT_NO_KEYWORDS
    QT_NO_URL_CAST_FROM_STRING
    QT_DISABLE_DEPRECATED_UP_TO=0x060400)
target_compile_options(csm_compile_policy INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wformat=2 -Wimplicit-fallthrough
    $<$<BOOL:${CSM_WARNINGS_AS_ERRORS}>:-Werror>
    $<$<BOOL:${CSM_SANITIZE}>:-fsanitize=address,undefined -fno-omit-frame-pointer>)
target_link_options(csm_compile_policy INTERFACE
    $<$<BOOL:${CSM_SANITIZE}>:-fsanitize=address,undefined>)
