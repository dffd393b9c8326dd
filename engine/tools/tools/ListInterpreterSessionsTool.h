#pragma once

#include "tools/InterpreterSessionTool.h"

namespace csm {

// list_sessions: the caller's live sessions (name, language, age, idle time, cells).
class ListInterpreterSessionsTool final : public InterpreterSessionTool
{
public:
    using InterpreterSessionTool::InterpreterSessionTool;

    QString name() const override;
    QJsonObject definition() const override;

private:
    QJsonObject answer(const QJsonObject& arguments, const InterpreterOwner* owner) override;
};

} // namespace csm
