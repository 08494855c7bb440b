package command

// Exported for the black-box tests: the hand-written documentation tables,
// so that a test can find entries left over from a removed command.
var (
	SummaryTable = summaries
	HistoryTable = historyNotes
)
