# Precompiled Qt headers. Nearly every C++ file of the project includes Qt Core, and parsing those headers took about 2 s of each file's 3-8 s compile, in
# ~500 files. One precompiled header per compile policy is built once and reused by every target
# with that policy: GCC uses a precompiled header only where it was made with the same
# optimisation and the same macros that its headers test, and the tests compile without
# optimisation (csm_test_compile_policy), so they have one of their own.
#
# What is precompiled is Qt Core alone, made with Qt Core's macro alone (QT_CORE_LIB): GCC uses it
# in a file only where every macro it was made with is defined alike, and Qt Core's headers test
# none of the macros other Qt modules add (QT_NETWORK_LIB, QT_WIDGETS_LIB, QT_TESTCASE_BUILDDIR:
# QtTest's and QtWidgets' headers do, so they are not precompiled). A header that does not match
# is not used (CMake adds -Winvalid-pch, so it would show as a warning, which
# fails a CI build). Every file still includes what it uses; a build with
# -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON shows one that does not.

set(CSM_PRECOMPILED_QT_HEADERS
    <QByteArray> <QCoreApplication> <QDateTime> <QDeadlineTimer> <QDir> <QElapsedTimer> <QFile>
    <QFileInfo> <QHash> <QJsonArray> <QJsonDocument> <QJsonObject> <QList> <QMap>
    <QObject> <QPointer> <QProcess> <QProcessEnvironment> <QRandomGenerator>
    <QRegularExpression> <QSet> <QString> <QStringList> <QTemporaryDir> <QTextStream> <QThread>
    <QTimer> <QUrl>
    <algorithm> <functional> <memory> <optional> <utility> <vector>)

# csm_add_precompiled_qt(<name> <policy>): <name> builds the precompiled header for targets that
# link <policy>.
function(csm_add_precompiled_qt name policy)
    add_library(${name} OBJECT ${PROJECT_SOURCE_DIR}/cmake/precompiled-qt.cpp)
    target_link_libraries(${name} PRIVATE Qt6::Core ${policy})
    target_precompile_headers(${name} PRIVATE ${CSM_PRECOMPILED_QT_HEADERS})
endfunction()

# csm_use_precompiled_qt(<directory>): every C++ target under <directory> (recursively) that
# links csm_compile_policy or csm_test_compile_policy reuses that policy's precompiled header.
function(csm_use_precompiled_qt directory)
    get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY)$")
            continue()
        endif()
        # A target with options of its own (the fuzzers' sanitizers, when the compiler is
        # Clang and they build here) compiles apart: a header made without them is refused.
        get_target_property(options ${target} COMPILE_OPTIONS)
        if(options)
            continue()
        endif()
        get_target_property(links ${target} LINK_LIBRARIES)
        if("csm_test_compile_policy" IN_LIST links)
            target_precompile_headers(${target} REUSE_FROM csm_precompiled_qt_tests)
            # A test's classes are in its .cpp (which includes its own .moc), so AUTOMOC's
            # mocs_compilation.cpp of a test is empty; with the header forced in, each of the
            # ~120 took 1.5-2.5 s to compile nothing.
            get_target_property(binary_dir ${target} BINARY_DIR)
            set_source_files_properties(
                ${binary_dir}/${target}_autogen/mocs_compilation.cpp TARGET_DIRECTORY ${target}
                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
        elseif("csm_compile_policy" IN_LIST links)
            target_precompile_headers(${target} REUSE_FROM csm_precompiled_qt)
        endif()
    endforeach()
    get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
    foreach(subdirectory IN LISTS subdirectories)
        csm_use_precompiled_qt(${subdirectory})
    endforeach()
endfunction()
