#pragma once

#include "mcp/Tool.h"
#include "sandbox/Language.h"

namespace csm {

class SandboxRunner;

// run_python_code / run_js_code: runs the given program in a fresh sandbox container.
class RunCodeTool final : public Tool
{
public:
    struct Config
    {
        Language language = Language::Python;
        QString image;
        bool customImage = false; // the user chose the image, so we cannot say what is in it
        double defaultTimeoutSeconds = 30;
        double maxTimeoutSeconds = 600;
    };

    RunCodeTool(SandboxRunner& runner, Config config);

    QString name() const override;
    QStringList aliases() const override;
    QJsonObject definition() const override;
    ToolCall* start(const QJsonObject& arguments, QObject* parent) override;

    const Config& config() const { return m_config; }

private:
    QString description() const;

    SandboxRunner& m_runner;
    Config m_config;
};

} // namespace csm
