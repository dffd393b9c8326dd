#include "server/ServerSettings.h"

#include "core/SettingsFile.h"
#include "server/ServerSettingsReader.h"
#include "server/ServerSettingsSchema.h"

namespace csm {

QString ServerSettings::filePath(const QString& dataDir)
{
    return SettingsFile::path(dataDir);
}

ServerSettings ServerSettings::load(const QString& dataDir, QStringList* problems)
{
    // The server's own rules read the file, with no flag and no environment over it: what the
    // app shows is what a server started now would use.
    ServerSettings settings;
    QStringList warnings;
    // Without flags or variables there is no error, only skipped values.
    const auto error =
        ServerSettingsReader(nullptr, QProcessEnvironment(), dataDir).read(settings, warnings);
    if (problems) {
        *problems << warnings;
        if (error)
            *problems << *error;
    }
    return settings;
}

Expected<void> ServerSettings::save(const QString& dataDir) const
{
    SettingsFile file(dataDir);
    for (const ServerSetting& setting : ServerSettingsSchema::settings()) {
        if (setting.saved)
            file.setValue(setting.key, setting.write(*this));
    }
    return file.save();
}

void ServerSettings::setImage(Language language, const QString& image)
{
    (language == Language::Python ? pythonImage : jsImage) = image.trimmed();
}

} // namespace csm
