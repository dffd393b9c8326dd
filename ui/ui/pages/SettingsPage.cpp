#include "ui/pages/SettingsPage.h"

#include "core/FileContentWatcher.h"
#include "runtime/SharedFolderText.h"
#include "sandbox/RunQueue.h"
#include "ui/widgets/HostListEditor.h"
#include "ui/widgets/SharedFoldersEditor.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSet>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace csm {

namespace {

constexpr qint64 KiB = 1024;
constexpr qint64 MiB = 1024 * KiB;

// The bounds a server accepts (ServerOptionsParser): the form offers nothing it would ignore.
constexpr int kMinMemoryMiB = 16;
constexpr int kMaxMemoryMiB = 1024 * 1024; // 1024g
constexpr int kMinPids = 8;
constexpr int kMaxPids = 1'000'000;
constexpr int kMinTmpfsMiB = 1;
constexpr int kMaxTmpfsMiB = 64 * 1024; // 64g
constexpr qint64 kMinOutputCap = KiB;
constexpr qint64 kMaxOutputCap = 64 * MiB;
constexpr int kMaxTimeoutSeconds = 86'400;
constexpr int kMaxPoolSize = 32;
constexpr int kMaxRunning = 1024;
constexpr int kMaxPoolIdleSeconds = 7 * 86'400;
// As ServerSettingsSchema checks them.
constexpr int kMinInterpreterIdleSeconds = 10;
constexpr int kMaxInterpreterIdleSeconds = 7 * 86'400;
constexpr int kMaxInterpreters = 256;
// A server takes any count and age; these only keep the boxes a sensible width.
constexpr int kMaxKeptRuns = 100'000'000;
constexpr int kMaxKeptDays = 100 * 365;
constexpr int kMaxKeptMiB = 1024 * 1024; // 1 TiB
// The bounds of --history-max-field-size, in KiB.
constexpr int kMinFieldKiB = 1;
constexpr int kMaxFieldKiB = 64 * 1024;
// DesktopSettings' bounds.
constexpr int kMinApprovalSeconds = 5;
constexpr int kMaxApprovalSeconds = 3600;

QSpinBox* spinBox(int minimum, int maximum, const QString& suffix, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setSuffix(suffix);
    box->setGroupSeparatorShown(false);
    box->setAccelerated(true);
    return box;
}

// A rounded value, kept within a box's range as the box itself would keep it.
int shown(QSpinBox* box, double value)
{
    return static_cast<int>(
        std::clamp<double>(std::llround(value), box->minimum(), box->maximum()));
}

QLabel* note(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

} // namespace

SettingsPage::SettingsPage(const QString& dataDir, QWidget* parent)
    : QWidget(parent)
    , m_dataDir(dataDir)
    , m_watcher(new FileContentWatcher(ServerSettings::filePath(dataDir), this))
{
    auto* form = new QWidget;

    // Sandbox limits.
    auto* limits = new QGroupBox(tr("Sandbox limits"), form);
    m_memory = spinBox(kMinMemoryMiB, kMaxMemoryMiB, tr(" MiB"), limits);
    m_memory->setSingleStep(64);
    m_memory->setToolTip(tr("Memory a sandbox may use; it gets no swap beyond it."));
    m_cpus = new QDoubleSpinBox(limits);
    m_cpus->setDecimals(2);
    m_cpus->setRange(0.01, std::max(1, QThread::idealThreadCount()));
    m_cpus->setSingleStep(0.25);
    m_cpus->setToolTip(tr("CPUs a sandbox may use, e.g. 0.5 (at most this machine's %1).")
                           .arg(std::max(1, QThread::idealThreadCount())));
    m_pids = spinBox(kMinPids, kMaxPids, QString(), limits);
    m_pids->setToolTip(tr("Processes and threads a sandbox may have at once."));
    m_tmpfs = spinBox(kMinTmpfsMiB, kMaxTmpfsMiB, tr(" MiB"), limits);
    m_tmpfs->setToolTip(tr("Size of each writable folder of a sandbox: /tmp and /sandbox."));
    m_outputCap = spinBox(1, static_cast<int>(kMaxOutputCap / KiB), QString(), limits);
    m_outputCap->setToolTip(
        tr("Most of each of stdout and stderr that is kept; the rest is dropped as it arrives."));
    // As wide as its widest range (KiB) needs, whichever unit is shown.
    m_outputCap->setMinimumWidth(m_outputCap->sizeHint().width());
    m_outputCapUnit = new QComboBox(limits);
    m_outputCapUnit->addItem(tr("KiB"), KiB);
    m_outputCapUnit->addItem(tr("MiB"), MiB);
    auto* outputCap = new QHBoxLayout;
    outputCap->addWidget(m_outputCap);
    outputCap->addWidget(m_outputCapUnit);
    outputCap->addStretch();
    // A row of a layout gets no buddy from addRow: the label is made here.
    auto* outputCapLabel = new QLabel(tr("O&utput kept per stream:"), limits);
    outputCapLabel->setBuddy(m_outputCap);
    auto* limitsLayout = new QFormLayout(limits);
    limitsLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    limitsLayout->addRow(tr("&Memory:"), m_memory);
    limitsLayout->addRow(tr("&CPUs:"), m_cpus);
    limitsLayout->addRow(tr("Pr&ocesses:"), m_pids);
    limitsLayout->addRow(tr("&Writable space:"), m_tmpfs);
    limitsLayout->addRow(outputCapLabel, outputCap);
    m_maxRunning = spinBox(0, kMaxRunning, QString(), limits);
    // What "automatic" means follows the memory limit.
    const auto showAutomatic = [this] {
        m_maxRunning->setSpecialValueText(
            tr("Automatic (%1)").arg(RunQueue::defaultMaxRunning(qint64(m_memory->value()) * MiB)));
    };
    connect(m_memory, &QSpinBox::valueChanged, m_maxRunning, showAutomatic);
    showAutomatic();
    m_maxRunning->setToolTip(tr("Sandboxes each server runs at once; further calls wait in a "
                                "queue. Automatic: twice the CPUs, or fewer when their memory "
                                "limits would not fit in this machine's memory."));
    limitsLayout->addRow(tr("Sandboxes at o&nce:"), m_maxRunning);
    m_allowUnlimited = new QCheckBox(
        tr("Run programs even where the engine does not enforce these &limits"), limits);
    m_allowUnlimited->setToolTip(
        tr("Rootless Podman on a cgroup v1 system accepts the memory, process and CPU limits "
           "and ignores them. Without this, such a sandbox refuses to run; with it, programs "
           "run bounded only by the machine, and each run says so."));
    limitsLayout->addRow(m_allowUnlimited);

    // Network.
    auto* network = new QGroupBox(tr("Network"), form);
    auto* networkLayout = new QVBoxLayout(network);
    m_egressModes = new QButtonGroup(network);
    const auto addMode = [&](EgressMode mode, const QString& label, const QString& explanation) {
        auto* button = new QRadioButton(label, network);
        button->setObjectName(QStringLiteral("egress-") + EgressModes::toString(mode));
        m_egressModes->addButton(button, static_cast<int>(mode));
        networkLayout->addWidget(button);
        networkLayout->addWidget(note(explanation, network));
    };
    addMode(EgressMode::Open, tr("&Public hosts, through the proxy"),
            tr("Sandboxed code reaches any public host through this app's proxy, and every "
               "connection shows in the run's Network tab. This computer, other sandboxes, "
               "private networks and the cloud metadata address are refused unless listed "
               "below."));
    addMode(EgressMode::Allowlist, tr("Only the hosts &listed below"),
            tr("Every other connection is refused, and the assistant is told why."));
    addMode(EgressMode::Ask, tr("As&k me about each new host"),
            tr("The first connection of a run to a public host not listed below waits while this "
               "app asks you: allow it for that run, always (it joins the always-allowed hosts "
               "below), or deny it. Unanswered within the approval time below, it is denied. "
               "Servers that assistants start themselves, with no app to ask, refuse such "
               "hosts."));
    addMode(EgressMode::None, tr("&No network"),
            tr("Sandboxed code has no network at all: the safest choice when the code you run "
               "needs none."));
    addMode(EgressMode::Bridge, tr("&Bridge, unfiltered"),
            tr("The container engine's own network, with no proxy: sandboxed code reaches "
               "everything this computer reaches, this computer's own services and the cloud "
               "metadata address included, and nothing is recorded."));
    m_allowedHosts =
        new HostListEditor(tr("api.github.com\n*.pypi.org\n192.168.1.20:8080"), network);
    m_allowedHosts->setObjectName(QStringLiteral("allowedHosts"));
    auto* hostsLabel = new QLabel(tr("Allowed &hosts, one a line (a name, *.domain or an "
                                     "address, with an optional :port):"),
                                  network);
    hostsLabel->setWordWrap(true);
    hostsLabel->setBuddy(m_allowedHosts);
    networkLayout->addWidget(hostsLabel);
    networkLayout->addWidget(m_allowedHosts);
    m_alwaysAllowed = new HostListEditor(tr("example.com:443"), network);
    m_alwaysAllowed->setObjectName(QStringLiteral("alwaysAllowed"));
    auto* alwaysLabel = new QLabel(tr("Hosts allowed &always when asked (ask mode), one a line. "
                                      "Unlike the hosts above, only at public addresses:"),
                                   network);
    alwaysLabel->setWordWrap(true);
    alwaysLabel->setBuddy(m_alwaysAllowed);
    networkLayout->addWidget(alwaysLabel);
    networkLayout->addWidget(m_alwaysAllowed);

    // Shared folders.
    auto* shared = new QGroupBox(tr("Shared folders"), form);
    m_sharedFolders = new SharedFoldersEditor(shared);
    auto* sharedLayout = new QVBoxLayout(shared);
    sharedLayout->addWidget(
        note(tr("Programs in every sandbox find these folders at /data/NAME, read-only unless "
                "marked writable; the assistant is told their names, so it can read a large file "
                "without it passing through the conversation. It can never choose a folder of "
                "this computer itself. The sandbox user (uid 65534) needs permission to read "
                "them, or to write to a writable one."),
             shared));
    sharedLayout->addWidget(m_sharedFolders);

    // Timeouts.
    auto* timeouts = new QGroupBox(tr("Timeouts"), form);
    m_timeout = spinBox(1, kMaxTimeoutSeconds, tr(" s"), timeouts);
    m_timeout->setToolTip(tr("How long a run may take when the call gives no timeout."));
    m_maxTimeout = spinBox(1, kMaxTimeoutSeconds, tr(" s"), timeouts);
    m_maxTimeout->setToolTip(tr("The longest timeout a call may ask for."));
    auto* timeoutsLayout = new QFormLayout(timeouts);
    timeoutsLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    timeoutsLayout->addRow(tr("&Default:"), m_timeout);
    timeoutsLayout->addRow(tr("Ma&ximum:"), m_maxTimeout);

    // Warm pool.
    auto* pool = new QGroupBox(tr("Warm pool"), form);
    m_poolSize = spinBox(0, kMaxPoolSize, tr(" per language"), pool);
    m_poolSize->setSpecialValueText(tr("Off"));
    m_poolSize->setToolTip(tr("Containers kept started ahead of calls, so that a call skips the "
                              "container start. Each runs one call only."));
    m_poolIdle = spinBox(1, kMaxPoolIdleSeconds, tr(" s"), pool);
    m_poolIdle->setToolTip(tr("Seconds without a call after which the waiting containers are "
                              "removed."));
    auto* poolLayout = new QFormLayout(pool);
    poolLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    poolLayout->addRow(tr("Containers &ready:"), m_poolSize);
    poolLayout->addRow(tr("Remove them after &idle:"), m_poolIdle);

    // Persistent sessions.
    auto* sessions = new QGroupBox(tr("Sessions"), form);
    m_interpreterIdle =
        spinBox(kMinInterpreterIdleSeconds, kMaxInterpreterIdleSeconds, tr(" s"), sessions);
    m_interpreterIdle->setToolTip(tr("A session without a cell this long ends, and its variables "
                                     "are lost; its client is told so on its next call."));
    m_maxInterpreters = spinBox(0, kMaxInterpreters, QString(), sessions);
    m_maxInterpreters->setSpecialValueText(tr("Off"));
    m_maxInterpreters->setToolTip(
        tr("Live sessions for all clients at once. Each keeps a container "
           "and its memory."));
    m_maxClientInterpreters = spinBox(1, kMaxInterpreters, QString(), sessions);
    m_maxClientInterpreters->setToolTip(tr("Live sessions each client may keep at once."));
    auto* sessionsLayout = new QFormLayout(sessions);
    sessionsLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    sessionsLayout->addRow(tr("End after i&dle:"), m_interpreterIdle);
    sessionsLayout->addRow(tr("At most, in &all:"), m_maxInterpreters);
    sessionsLayout->addRow(tr("At most, per c&lient:"), m_maxClientInterpreters);

    // Privacy.
    auto* privacy = new QGroupBox(tr("Privacy"), form);
    m_redact = new QCheckBox(tr("R&eplace secret values in output with [secret:NAME]"), privacy);
    m_redactWarning = new QLabel(tr("Secret values that a program prints will reach the "
                                    "assistant as they are. The history and the logs stay "
                                    "redacted."),
                                 privacy);
    m_redactWarning->setWordWrap(true);
    m_redactWarning->setStyleSheet(QStringLiteral("color: #b3261e;"));
    auto* privacyLayout = new QVBoxLayout(privacy);
    privacyLayout->addWidget(m_redact);
    privacyLayout->addWidget(m_redactWarning);

    // History.
    auto* history = new QGroupBox(tr("History"), form);
    m_maxRuns = spinBox(0, kMaxKeptRuns, tr(" runs"), history);
    m_maxRuns->setSpecialValueText(tr("No limit"));
    m_maxRuns->setSingleStep(1000);
    m_maxDays = spinBox(0, kMaxKeptDays, tr(" days"), history);
    m_maxDays->setSpecialValueText(tr("No limit"));
    m_maxMb = spinBox(0, kMaxKeptMiB, tr(" MiB"), history);
    m_maxMb->setSpecialValueText(tr("No limit"));
    m_maxMb->setSingleStep(64);
    m_maxMb->setToolTip(tr("The oldest runs are deleted while the history holds more."));
    m_filesMaxMb = spinBox(0, kMaxKeptMiB, tr(" MiB"), history);
    m_filesMaxMb->setSpecialValueText(tr("No limit"));
    m_filesMaxMb->setSingleStep(256);
    m_filesMaxMb->setToolTip(tr("The files runs were given and made (charts, results), kept "
                                "beside the history: the oldest runs' files are deleted while "
                                "they take more."));
    m_maxFieldSize = spinBox(kMinFieldKiB, kMaxFieldKiB, tr(" KiB"), history);
    m_maxFieldSize->setSingleStep(64);
    m_maxFieldSize->setToolTip(tr("Most of each run's code, stdout and stderr kept in the "
                                  "history; a note says how much more there was. What the "
                                  "assistant gets is not affected."));
    auto* historyLayout = new QFormLayout(history);
    historyLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    historyLayout->addRow(tr("Keep &the newest:"), m_maxRuns);
    historyLayout->addRow(tr("Keep runs &for:"), m_maxDays);
    historyLayout->addRow(tr("Keep the histor&y within:"), m_maxMb);
    historyLayout->addRow(tr("Keep runs' f&iles within:"), m_filesMaxMb);
    historyLayout->addRow(tr("&Keep of each code and output:"), m_maxFieldSize);
    historyLayout->addRow(note(tr("Servers delete older runs when they start, every 10 minutes, "
                                  "and as soon as the history outgrows its size (0: no limit)."),
                               history));

    // Engine.
    auto* engine = new QGroupBox(tr("Engine"), form);
    m_engine = new QComboBox(engine);
    m_engine->addItem(tr("Auto (Podman if installed, else Docker)"), QString());
    m_engine->addItem(tr("Podman"), QStringLiteral("podman"));
    m_engine->addItem(tr("Docker"), QStringLiteral("docker"));
    auto* engineLayout = new QFormLayout(engine);
    engineLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    engineLayout->addRow(tr("Container en&gine:"), m_engine);
    m_engineHost = new QLineEdit(engine);
    m_engineHost->setPlaceholderText(tr("where its command line goes by default"));
    m_engineHost->setMinimumWidth(m_engineHost->fontMetrics().averageCharWidth() * 40);
    engineLayout->addRow(tr("Engine &host:"), m_engineHost);
    engineLayout->addRow(note(tr("A remote engine or a VM: ssh://me@build, tcp://build:2376 (TLS "
                                 "from DOCKER_CERT_PATH), unix:///path/to/podman.sock, or the "
                                 "name of a Docker context or Podman connection. Sandboxes there "
                                 "get their launcher through the engine, not a shared folder."),
                              engine));

    // Approval.
    auto* approval = new QGroupBox(tr("Approval"), form);
    m_approval = new QCheckBox(tr("Ask me to &approve each call to this app's server"), approval);
    m_approvalTimeout = spinBox(kMinApprovalSeconds, kMaxApprovalSeconds, tr(" s"), approval);
    auto* approvalLayout = new QFormLayout(approval);
    approvalLayout->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    approvalLayout->addRow(m_approval);
    approvalLayout->addRow(tr("Deny a call nobody approves wit&hin:"), m_approvalTimeout);
    approvalLayout->addRow(
        note(tr("Headless servers started by an assistant are not affected."), approval));

    // Notifications.
    auto* notifications = new QGroupBox(tr("Notifications"), form);
    m_notifyApprovals =
        new QCheckBox(tr("Notify me when a call &waits for my approval"), notifications);
    m_notifyFailures = new QCheckBox(
        tr("Notify me when a call &fails or runs out of memory (any server)"), notifications);
    auto* notificationsLayout = new QVBoxLayout(notifications);
    notificationsLayout->addWidget(m_notifyApprovals);
    notificationsLayout->addWidget(m_notifyFailures);
    notificationsLayout->addWidget(
        note(tr("Shown by the desktop's notification area, where it has one."), notifications));

    auto* formLayout = new QVBoxLayout(form);
    for (QWidget* group : {static_cast<QWidget*>(limits), static_cast<QWidget*>(network),
                           static_cast<QWidget*>(shared), static_cast<QWidget*>(timeouts),
                           static_cast<QWidget*>(pool), static_cast<QWidget*>(sessions),
                           static_cast<QWidget*>(privacy), static_cast<QWidget*>(history),
                           static_cast<QWidget*>(engine), static_cast<QWidget*>(approval),
                           static_cast<QWidget*>(notifications)})
        formLayout->addWidget(group);
    formLayout->addStretch();
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(form);

    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setStyleSheet(QStringLiteral("color: #8a5300;"));
    m_problems->hide();
    m_changedElsewhere = new QLabel(tr("The settings file was changed by another program. Apply "
                                       "saves your edits over it and keeps its other values; "
                                       "Revert shows it as it is now."),
                                    this);
    m_changedElsewhere->setWordWrap(true);
    m_changedElsewhere->hide();
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_error->hide();

    m_apply = new QPushButton(tr("A&pply"), this);
    m_apply->setToolTip(tr("Save the settings to %1")
                            .arg(QDir::toNativeSeparators(ServerSettings::filePath(dataDir))));
    m_revert = new QPushButton(tr("Re&vert"), this);
    m_revert->setToolTip(tr("Discard the edits and show the saved settings"));
    m_defaults = new QPushButton(tr("Re&store defaults"), this);
    m_defaults->setToolTip(tr("Put the built-in defaults in the form (saved on Apply)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_apply);
    buttons->addWidget(m_revert);
    buttons->addStretch();
    buttons->addWidget(m_defaults);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_problems);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_changedElsewhere);
    layout->addWidget(m_error);
    layout->addLayout(buttons);
    layout->addWidget(note(tr("Applies to the next run of every Code Sandbox server; a new "
                              "engine applies when a server starts."),
                           this));

    for (QSpinBox* box :
         {m_memory, m_pids, m_tmpfs, m_outputCap, m_timeout, m_maxTimeout, m_poolSize, m_poolIdle,
          m_interpreterIdle, m_maxInterpreters, m_maxClientInterpreters, m_maxRuns, m_maxDays,
          m_maxMb, m_maxFieldSize, m_approvalTimeout, m_maxRunning})
        connect(box, &QSpinBox::valueChanged, this, &SettingsPage::updateState);
    connect(m_cpus, &QDoubleSpinBox::valueChanged, this, &SettingsPage::updateState);
    for (QAbstractButton* button :
         {static_cast<QAbstractButton*>(m_redact), static_cast<QAbstractButton*>(m_approval),
          static_cast<QAbstractButton*>(m_notifyApprovals),
          static_cast<QAbstractButton*>(m_notifyFailures),
          static_cast<QAbstractButton*>(m_allowUnlimited)})
        connect(button, &QAbstractButton::toggled, this, &SettingsPage::updateState);
    connect(m_egressModes, &QButtonGroup::idToggled, this, &SettingsPage::updateState);
    connect(m_allowedHosts, &QPlainTextEdit::textChanged, this, &SettingsPage::updateState);
    connect(m_alwaysAllowed, &QPlainTextEdit::textChanged, this, &SettingsPage::updateState);
    connect(m_engine, &QComboBox::currentIndexChanged, this, &SettingsPage::updateState);
    connect(m_engineHost, &QLineEdit::textChanged, this, &SettingsPage::updateState);
    connect(m_sharedFolders, &SharedFoldersEditor::changed, this, &SettingsPage::updateState);
    connect(m_outputCapUnit, &QComboBox::currentIndexChanged, this,
            &SettingsPage::onOutputCapUnitChanged);
    connect(m_apply, &QPushButton::clicked, this, &SettingsPage::apply);
    connect(m_revert, &QPushButton::clicked, this, &SettingsPage::revert);
    connect(m_defaults, &QPushButton::clicked, this, &SettingsPage::restoreDefaults);
    connect(m_watcher, &FileContentWatcher::contentChanged, this, &SettingsPage::onFileChanged);

    m_watcher->start();
    reload();
    // Stable names: tests find the widgets by them (findChild).
    m_memory->setObjectName(QStringLiteral("memory"));
    m_cpus->setObjectName(QStringLiteral("cpus"));
    m_pids->setObjectName(QStringLiteral("processes"));
    m_tmpfs->setObjectName(QStringLiteral("writableSpace"));
    m_outputCap->setObjectName(QStringLiteral("outputCap"));
    m_outputCapUnit->setObjectName(QStringLiteral("outputCapUnit"));
    m_timeout->setObjectName(QStringLiteral("defaultTimeout"));
    m_maxTimeout->setObjectName(QStringLiteral("maxTimeout"));
    m_poolSize->setObjectName(QStringLiteral("poolSize"));
    m_poolIdle->setObjectName(QStringLiteral("poolIdle"));
    m_interpreterIdle->setObjectName(QStringLiteral("interpreterIdle"));
    m_maxInterpreters->setObjectName(QStringLiteral("maxInterpreters"));
    m_maxClientInterpreters->setObjectName(QStringLiteral("maxClientInterpreters"));
    m_redact->setObjectName(QStringLiteral("redact"));
    m_redactWarning->setObjectName(QStringLiteral("redactWarning"));
    m_maxRunning->setObjectName(QStringLiteral("maxRunning"));
    m_allowUnlimited->setObjectName(QStringLiteral("allowUnlimited"));
    m_maxRuns->setObjectName(QStringLiteral("keepRuns"));
    m_maxDays->setObjectName(QStringLiteral("keepDays"));
    m_maxMb->setObjectName(QStringLiteral("keepMegabytes"));
    m_filesMaxMb->setObjectName(QStringLiteral("keepFilesMegabytes"));
    m_maxFieldSize->setObjectName(QStringLiteral("keepPerText"));
    m_engine->setObjectName(QStringLiteral("engine"));
    m_engineHost->setObjectName(QStringLiteral("engineHost"));
    m_approval->setObjectName(QStringLiteral("approvalRequired"));
    m_approvalTimeout->setObjectName(QStringLiteral("approvalTimeout"));
    m_notifyApprovals->setObjectName(QStringLiteral("notifyApprovals"));
    m_notifyFailures->setObjectName(QStringLiteral("notifyFailures"));
    m_apply->setObjectName(QStringLiteral("applyButton"));
    m_revert->setObjectName(QStringLiteral("revertButton"));
    m_defaults->setObjectName(QStringLiteral("restoreDefaultsButton"));
    m_problems->setObjectName(QStringLiteral("problemsLabel"));
    m_error->setObjectName(QStringLiteral("errorLabel"));
    m_changedElsewhere->setObjectName(QStringLiteral("changedElsewhereLabel"));
}

bool SettingsPage::hasChanges() const
{
    return formValues() != m_shownAtLoad;
}

bool SettingsPage::apply()
{
    // Over the file as it is now: another program may have changed what this form left alone.
    ServerSettings server = changedServer(ServerSettings::load(m_dataDir));
    DesktopSettings desktop = changedDesktop(DesktopSettings::load(m_dataDir));
    if (const QString invalid = invalidReason(server); !invalid.isEmpty()) {
        m_saveError = tr("Not saved: %1").arg(invalid);
        updateState();
        return false;
    }
    Expected<void> saved = server.save(m_dataDir);
    if (saved)
        saved = desktop.save(m_dataDir);
    if (!saved) {
        m_saveError = tr("The settings cannot be saved: %1").arg(saved.error());
        updateState();
        return false;
    }
    reload();
    Q_EMIT applied();
    return true;
}

void SettingsPage::revert()
{
    reload();
}

void SettingsPage::restoreDefaults()
{
    // The images and the HTTP server have pages of their own: their values stay as they are.
    ServerSettings server;
    server.pythonImage = m_loadedServer.pythonImage;
    server.jsImage = m_loadedServer.jsImage;
    DesktopSettings desktop = m_loadedDesktop;
    const DesktopSettings defaults;
    desktop.approvalRequired = defaults.approvalRequired;
    desktop.approvalTimeoutSeconds = defaults.approvalTimeoutSeconds;
    desktop.notifyApprovals = defaults.notifyApprovals;
    desktop.notifyFailures = defaults.notifyFailures;
    fill(server, desktop);
    m_saveError.clear();
    updateState();
}

void SettingsPage::reload()
{
    QStringList problems;
    m_loadedServer = ServerSettings::load(m_dataDir, &problems);
    m_loadedDesktop = DesktopSettings::load(m_dataDir);
    fill(m_loadedServer, m_loadedDesktop);
    m_shownAtLoad = formValues();
    if (problems.isEmpty()) {
        m_problems->clear();
        m_problems->hide();
    } else {
        m_problems->setText(tr("Some stored settings are not valid and were ignored; the form "
                               "shows what servers use instead:") +
                            QStringLiteral("\n• ") + problems.join(QStringLiteral("\n• ")));
        m_problems->show();
    }
    m_saveError.clear();
    m_changedElsewhere->hide();
    updateState();
}

void SettingsPage::setOutputCap(qint64 bytes)
{
    // Whole mebibytes read best in MiB; anything else is kept exact enough in KiB.
    const int unit = bytes % MiB == 0 ? 1 : 0;
    {
        const QSignalBlocker blocker(m_outputCapUnit);
        m_outputCapUnit->setCurrentIndex(unit);
    }
    m_outputCapFactor = m_outputCapUnit->currentData().toLongLong();
    m_outputCap->setRange(static_cast<int>(std::max<qint64>(1, kMinOutputCap / m_outputCapFactor)),
                          static_cast<int>(kMaxOutputCap / m_outputCapFactor));
    m_outputCap->setValue(shown(m_outputCap, static_cast<double>(bytes) / m_outputCapFactor));
}

void SettingsPage::fill(const ServerSettings& server, const DesktopSettings& desktop)
{
    m_filling = true;
    m_memory->setValue(shown(m_memory, static_cast<double>(server.policy.memoryBytes) / MiB));
    m_cpus->setValue(server.policy.cpus);
    m_pids->setValue(server.policy.pidsLimit);
    m_tmpfs->setValue(shown(m_tmpfs, static_cast<double>(server.policy.tmpfsBytes) / MiB));
    setOutputCap(server.policy.outputCapBytes);
    if (QAbstractButton* mode = m_egressModes->button(static_cast<int>(server.egress.mode)))
        mode->setChecked(true);
    m_allowedHosts->setHosts(server.egress.allowedHosts);
    m_alwaysAllowed->setHosts(server.egress.alwaysAllowed);
    m_sharedFolders->setFolders(server.policy.sharedFolders);
    m_timeout->setValue(shown(m_timeout, server.defaultTimeoutSeconds));
    m_maxTimeout->setValue(shown(m_maxTimeout, server.maxTimeoutSeconds));
    m_poolSize->setValue(server.poolSize);
    m_poolIdle->setValue(server.poolIdleSeconds);
    m_interpreterIdle->setValue(server.interpreterIdleSeconds);
    m_maxInterpreters->setValue(server.maxInterpreters);
    m_maxClientInterpreters->setValue(server.maxClientInterpreters);
    m_maxRunning->setValue(server.maxRunning);
    m_allowUnlimited->setChecked(server.policy.allowUnenforcedLimits);
    m_redact->setChecked(server.redactOutput);
    m_maxRuns->setValue(std::max(0, server.historyRetention.maxRuns));
    m_maxDays->setValue(std::max(0, server.historyRetention.maxAgeDays));
    m_maxMb->setValue(shown(
        m_maxMb,
        static_cast<double>(std::max<qint64>(0, server.historyRetention.maxTotalBytes)) / MiB));
    m_filesMaxMb->setValue(shown(
        m_filesMaxMb,
        static_cast<double>(std::max<qint64>(0, server.historyRetention.maxFilesBytes)) / MiB));
    m_maxFieldSize->setValue(
        shown(m_maxFieldSize, static_cast<double>(server.historyMaxFieldBytes) / KiB));
    m_engine->setCurrentIndex(std::max(0, m_engine->findData(server.engine)));
    m_engineHost->setText(server.engineHost);
    m_approval->setChecked(desktop.approvalRequired);
    m_approvalTimeout->setValue(desktop.approvalTimeoutSeconds);
    m_notifyApprovals->setChecked(desktop.notifyApprovals);
    m_notifyFailures->setChecked(desktop.notifyFailures);
    m_filling = false;
}

SettingsPage::FormValues SettingsPage::formValues() const
{
    FormValues values;
    values.memoryMiB = m_memory->value();
    values.cpus = m_cpus->value();
    values.pids = m_pids->value();
    values.tmpfsMiB = m_tmpfs->value();
    values.outputCapBytes = m_outputCap->value() * m_outputCapFactor;
    values.egressMode = m_egressModes->checkedId();
    values.allowedHosts = m_allowedHosts->lines();
    values.alwaysAllowed = m_alwaysAllowed->lines();
    values.sharedFolders = m_sharedFolders->folders();
    values.timeoutSeconds = m_timeout->value();
    values.maxTimeoutSeconds = m_maxTimeout->value();
    values.poolSize = m_poolSize->value();
    values.poolIdleSeconds = m_poolIdle->value();
    values.interpreterIdleSeconds = m_interpreterIdle->value();
    values.maxInterpreters = m_maxInterpreters->value();
    values.maxClientInterpreters = m_maxClientInterpreters->value();
    values.maxRunning = m_maxRunning->value();
    values.allowUnlimited = m_allowUnlimited->isChecked();
    values.redact = m_redact->isChecked();
    values.maxRuns = m_maxRuns->value();
    values.maxDays = m_maxDays->value();
    values.maxMb = m_maxMb->value();
    values.filesMaxMb = m_filesMaxMb->value();
    values.maxFieldKiB = m_maxFieldSize->value();
    values.engine = m_engine->currentData().toString();
    values.engineHost = m_engineHost->text().trimmed();
    values.approval = m_approval->isChecked();
    values.approvalTimeoutSeconds = m_approvalTimeout->value();
    values.notifyApprovals = m_notifyApprovals->isChecked();
    values.notifyFailures = m_notifyFailures->isChecked();
    return values;
}

ServerSettings SettingsPage::changedServer(ServerSettings onto) const
{
    const FormValues now = formValues();
    const FormValues& was = m_shownAtLoad;
    if (now.memoryMiB != was.memoryMiB)
        onto.policy.memoryBytes = now.memoryMiB * MiB;
    if (now.cpus != was.cpus)
        onto.policy.cpus = now.cpus;
    if (now.pids != was.pids)
        onto.policy.pidsLimit = now.pids;
    if (now.tmpfsMiB != was.tmpfsMiB)
        onto.policy.tmpfsBytes = now.tmpfsMiB * MiB;
    if (now.outputCapBytes != was.outputCapBytes)
        onto.policy.outputCapBytes = std::clamp(now.outputCapBytes, kMinOutputCap, kMaxOutputCap);
    if (now.egressMode != was.egressMode && now.egressMode >= 0)
        onto.setEgressMode(static_cast<EgressMode>(now.egressMode));
    // A host that does not parse stops the save (invalidReason), as the server would refuse the
    // whole list.
    if (now.allowedHosts != was.allowedHosts)
        onto.egress.allowedHosts = HostListEditor::parse(now.allowedHosts);
    if (now.alwaysAllowed != was.alwaysAllowed)
        onto.egress.alwaysAllowed = HostListEditor::parse(now.alwaysAllowed);
    if (now.sharedFolders != was.sharedFolders)
        onto.policy.sharedFolders = now.sharedFolders;
    if (now.timeoutSeconds != was.timeoutSeconds)
        onto.defaultTimeoutSeconds = now.timeoutSeconds;
    if (now.maxTimeoutSeconds != was.maxTimeoutSeconds)
        onto.maxTimeoutSeconds = now.maxTimeoutSeconds;
    if (now.poolSize != was.poolSize)
        onto.poolSize = now.poolSize;
    if (now.poolIdleSeconds != was.poolIdleSeconds)
        onto.poolIdleSeconds = now.poolIdleSeconds;
    if (now.interpreterIdleSeconds != was.interpreterIdleSeconds)
        onto.interpreterIdleSeconds = now.interpreterIdleSeconds;
    if (now.maxInterpreters != was.maxInterpreters)
        onto.maxInterpreters = now.maxInterpreters;
    if (now.maxClientInterpreters != was.maxClientInterpreters)
        onto.maxClientInterpreters = now.maxClientInterpreters;
    if (now.maxRunning != was.maxRunning)
        onto.maxRunning = now.maxRunning;
    if (now.allowUnlimited != was.allowUnlimited)
        onto.policy.allowUnenforcedLimits = now.allowUnlimited;
    if (now.redact != was.redact)
        onto.redactOutput = now.redact;
    if (now.maxRuns != was.maxRuns)
        onto.historyRetention.maxRuns = now.maxRuns;
    if (now.maxDays != was.maxDays)
        onto.historyRetention.maxAgeDays = now.maxDays;
    if (now.maxMb != was.maxMb)
        onto.historyRetention.maxTotalBytes = now.maxMb * MiB;
    if (now.filesMaxMb != was.filesMaxMb)
        onto.historyRetention.maxFilesBytes = now.filesMaxMb * MiB;
    if (now.maxFieldKiB != was.maxFieldKiB)
        onto.historyMaxFieldBytes = now.maxFieldKiB * KiB;
    if (now.engine != was.engine)
        onto.engine = now.engine;
    if (now.engineHost != was.engineHost)
        onto.engineHost = now.engineHost;
    return onto;
}

DesktopSettings SettingsPage::changedDesktop(DesktopSettings onto) const
{
    const FormValues now = formValues();
    if (now.approval != m_shownAtLoad.approval)
        onto.approvalRequired = now.approval;
    if (now.approvalTimeoutSeconds != m_shownAtLoad.approvalTimeoutSeconds)
        onto.approvalTimeoutSeconds = now.approvalTimeoutSeconds;
    if (now.notifyApprovals != m_shownAtLoad.notifyApprovals)
        onto.notifyApprovals = now.notifyApprovals;
    if (now.notifyFailures != m_shownAtLoad.notifyFailures)
        onto.notifyFailures = now.notifyFailures;
    return onto;
}

QString SettingsPage::invalidReason(const ServerSettings& settings) const
{
    const FormValues values = formValues();
    if (const QString problem = HostListEditor::firstProblem(values.allowedHosts);
        !problem.isEmpty())
        return tr("an allowed host is not valid: %1.").arg(problem);
    if (const QString problem = HostListEditor::firstProblem(values.alwaysAllowed);
        !problem.isEmpty())
        return tr("an always-allowed host is not valid: %1.").arg(problem);
    // A server refuses a stored default longer than the stored maximum, and would then ignore
    // the whole file.
    if (settings.defaultTimeoutSeconds > settings.maxTimeoutSeconds)
        return tr("the default timeout (%1 s) is longer than the maximum (%2 s).")
            .arg(settings.defaultTimeoutSeconds)
            .arg(settings.maxTimeoutSeconds);
    // A server would skip every share of a list it cannot read.
    QSet<QString> names;
    for (const SharedFolder& folder : settings.policy.sharedFolders) {
        if (!SharedFolderText::isValidName(folder.name))
            return tr("the shared folder name \"%1\" is not valid: use letters, digits, '.', "
                      "'_' and '-'.")
                .arg(folder.name);
        if (names.contains(folder.name))
            return tr("two shared folders are named \"%1\".").arg(folder.name);
        names.insert(folder.name);
    }
    return {};
}

void SettingsPage::onOutputCapUnitChanged()
{
    const qint64 bytes = m_outputCap->value() * m_outputCapFactor;
    m_outputCapFactor = m_outputCapUnit->currentData().toLongLong();
    const QSignalBlocker blocker(m_outputCap);
    m_outputCap->setRange(static_cast<int>(std::max<qint64>(1, kMinOutputCap / m_outputCapFactor)),
                          static_cast<int>(kMaxOutputCap / m_outputCapFactor));
    m_outputCap->setValue(shown(m_outputCap, static_cast<double>(bytes) / m_outputCapFactor));
    updateState();
}

void SettingsPage::onFileChanged()
{
    // Edits in progress are the person's: they are never replaced behind their back.
    if (hasChanges()) {
        m_changedElsewhere->show();
        return;
    }
    reload();
}

void SettingsPage::updateState()
{
    if (m_filling)
        return;
    const bool changed = hasChanges();
    QString invalid = changed ? invalidReason(changedServer(m_loadedServer)) : QString();
    if (!invalid.isEmpty())
        invalid = tr("Cannot apply: %1").arg(invalid);
    m_apply->setEnabled(changed && invalid.isEmpty());
    m_revert->setEnabled(changed);
    m_redactWarning->setVisible(!m_redact->isChecked());
    m_approvalTimeout->setEnabled(m_approval->isChecked());
    const QString error = invalid.isEmpty() ? m_saveError : invalid;
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    if (!changed)
        m_changedElsewhere->hide();
}

} // namespace csm
