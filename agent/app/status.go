package app

// StatusStepLimit is the exit status of a print or JSON run that
// --max-steps stopped before the model finished (0 ok, 1 error, 2 usage
// error).
const StatusStepLimit = 3

// ErrStepLimit ends a run that --max-steps stopped before the model
// finished; the notice saying so was shown already, so it prints nothing
// and gives StatusStepLimit.
var ErrStepLimit error = stepLimit{}

type stepLimit struct{}

func (stepLimit) Error() string { return "" }
func (stepLimit) ExitCode() int { return StatusStepLimit }
