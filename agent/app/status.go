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

// StatusGoal is the exit status of a print or JSON run whose goal
// stopped before it was complete: its budget was spent, or the model
// reported it blocked.
const StatusGoal = 4

// StatusInterrupted is the exit status of a run the user interrupted
// (Ctrl+C, SIGTERM): 128 + SIGINT, as shells report it.
const StatusInterrupted = 130

// ErrGoalStopped ends a print or JSON run whose goal stopped unfinished;
// the notice saying why was shown already.
var ErrGoalStopped error = goalStopped{}

type goalStopped struct{}

func (goalStopped) Error() string { return "" }
func (goalStopped) ExitCode() int { return StatusGoal }
