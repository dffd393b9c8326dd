#pragma once

#include <QString>
#include <QStringList>

#include <array>
#include <cstddef>
#include <optional>
#include <utility>

namespace csm {

// The words by which an enum's values are written in options, settings and the history, each
// value with one word: both ways, and all of them in order (for messages that list them).
template <typename Enum, std::size_t Count>
class EnumNames final
{
public:
    explicit constexpr EnumNames(std::array<std::pair<Enum, const char*>, Count> names)
        : m_names(names)
    {}

    QString toString(Enum value) const
    {
        for (const auto& [known, name] : m_names) {
            if (known == value)
                return QLatin1String(name);
        }
        return {};
    }

    std::optional<Enum> fromString(const QString& text) const
    {
        for (const auto& [value, name] : m_names) {
            if (text == QLatin1String(name))
                return value;
        }
        return std::nullopt;
    }

    QStringList names() const
    {
        QStringList names;
        for (const auto& [value, name] : m_names)
            names << QLatin1String(name);
        return names;
    }

private:
    std::array<std::pair<Enum, const char*>, Count> m_names;
};

} // namespace csm
