#pragma once

#include "tools/InterpreterSessionTool.h"

namespace csm {

// end_session: ends one of the caller's sessions (its interpreter, state and container).
class EndInterpreterSessionTool final : public InterpreterSessionTool
{
public:
    using InterpreterSessionTool::InterpreterSessionTool;

    QString name() const override;
    QJsonObject definition() const override;

private:
    QJsonObject answer(const QJsonObject& arguments, const InterpreterOwner* owner) override;
};

} // namespace csm
