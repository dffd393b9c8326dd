#pragma once

#include "mcp/Tool.h"
#include "runtime/Language.h"
#include "tools/InputFileList.h"
#include "tools/RunCodeCall.h"

#include <memory>
#include <utility>

namespace csm {

class RunFileOwners;
class RunObserver;
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
        // Secret values in what the program prints reach the client as [secret:NAME]. Off only
        // when the user asks: the model's provider would see them.
        bool redactOutput = true;
        // Where runs' files are kept (RunFilesStore::rootIn of the data folder); empty: the
        // program's output files are not collected.
        QString runFilesRoot;
        InputFileList::Limits inputLimits;
        // Told which client made each run's files (resources/read serves them to it alone).
        std::shared_ptr<RunFileOwners> fileOwners;
    };

    // `observer` (may be null) is told of every call's start and end (the run history).
    RunCodeTool(SandboxRunner& runner, Config config, RunObserver* observer = nullptr);

    QString name() const override;
    QStringList aliases() const override;
    QJsonObject definition() const override;
    // The program, as the client sent it.
    QString reviewText(const QJsonObject& arguments) const override;
    QList<ReviewedFile> reviewFiles(const QJsonObject& arguments) const override;
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

    const Config& config() const { return m_config; }
    // Whether calls may name a "session" (the runner's interpreters() keep them); without it the
    // argument is not offered.
    void offerSessions(bool offered) { m_sessionsOffered = offered; }
    // For calls started from now on; running ones keep the config they started with.
    void setConfig(Config config) { m_config = std::move(config); }

private:
    QString description() const;
    // What the description says about files in and out.
    QString filesSentence() const;
    // What the description says about sessions (empty when there are none).
    QString sessionSentence() const;
    // How the sandbox reaches the network, for the description.
    QString networkText() const;
    // A folder for the call's files, with a copy of its inputs; none without a store.
    std::optional<RunCodeCall::Files> prepareFiles(const QList<InputFile>& inputs) const;
    // The session a call asked for: its name, and the key of the interpreter it got (empty when
    // the call was refused first).
    struct SessionMark
    {
        QString name;
        QString key;
    };
    qint64 reportStart(const CallContext& context, const QJsonValue& code, int timeoutMs,
                       const SessionMark& session = {}, const QString& filesKey = {},
                       const QList<InputFile>& inputFiles = {}) const;

    bool m_sessionsOffered = false;
    SandboxRunner& m_runner;
    Config m_config;
    RunObserver* m_observer = nullptr;
};

} // namespace csm
