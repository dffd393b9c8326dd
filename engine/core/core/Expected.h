#pragma once

#include <QString>

#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace csm {

// Why something failed, as the message a person reads ("cannot write /x: disk full"). Returned
// through Expected: `return Unexpected(tr("..."));`.
struct Unexpected
{
    explicit Unexpected(QString message)
        : error(std::move(message))
    {}
    QString error;
};

// The one convention for what can fail: a value, or the reason it did not come (Qt Creator's
// expected_str; std::expected is C++23). Checked like a pointer: `if (!result) ...
// result.error()`, then `*result`. Expected<void> carries only the reason.
template <typename T>
class [[nodiscard]] Expected
{
public:
    Expected(T value)
        : m_state(std::in_place_index<0>, std::move(value))
    {}
    template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                      !std::is_same_v<std::decay_t<U>, Unexpected>>>
    Expected(U&& value)
        : m_state(std::in_place_index<0>, T(std::forward<U>(value)))
    {}
    Expected(Unexpected failure)
        : m_state(std::in_place_index<1>, std::move(failure.error))
    {}

    bool hasValue() const { return m_state.index() == 0; }
    explicit operator bool() const { return hasValue(); }

    // Only when hasValue(). A temporary's value is moved out, not referred to, so that
    // `for (const auto& x : *read())` does not outlive what it loops over.
    T& value() & { return std::get<0>(m_state); }
    const T& value() const& { return std::get<0>(m_state); }
    T value() && { return std::get<0>(std::move(m_state)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T valueOr(T fallback) const { return hasValue() ? value() : std::move(fallback); }

    // The reason; empty when hasValue(), so that a test can print it either way
    // (`QVERIFY2(saved, qPrintable(saved.error()))`).
    const QString& error() const
    {
        const QString* reason = std::get_if<1>(&m_state);
        return reason ? *reason : noError();
    }

private:
    static const QString& noError()
    {
        static const QString none;
        return none;
    }

    std::variant<T, QString> m_state;
};

template <>
class [[nodiscard]] Expected<void>
{
public:
    Expected() = default;
    Expected(Unexpected failure)
        : m_error(std::move(failure.error))
    {}

    bool hasValue() const { return !m_error.has_value(); }
    explicit operator bool() const { return hasValue(); }
    // The reason; empty when hasValue().
    const QString& error() const
    {
        static const QString none;
        return m_error ? *m_error : none;
    }

private:
    std::optional<QString> m_error;
};

} // namespace csm
