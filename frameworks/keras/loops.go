package keras

import (
	"slices"

	"github.com/recomp/recomp/frameworks/framework"
)

// LoopStep is FrontEnd.LoopStep: the step of the i-th of n step programs first compiled in window
// w, from what Keras's loops run (ProgbarLogger's lines, see Log):
//
//   - fit runs its train step first in each epoch, then its test step on the validation data
//     (the epoch's last bar shows val_ metrics): two new programs in an epoch with validation are
//     the train and the test step; one is the train step where no step compiled before (else it
//     may be the test step of a fit given validation data the second time);
//   - without validation fit runs its train step alone;
//   - predict's bar shows no metrics, and predict runs its predict step, unless a step was first
//     compiled under an earlier predict bar: Keras reuses a model's predict step, so a new one may
//     be the step of a call that printed no bar (an evaluate with verbose=0);
//   - a bar with metrics and no epoch line is an evaluate or a fit of one epoch: left open.
func LoopStep(w framework.LoopWindow, i, n int, before bool, earlier []framework.LoopWindow) string {
	predicted := slices.ContainsFunc(earlier, func(e framework.LoopWindow) bool { return !e.Metrics && e.Bars > 0 && e.Epoch == 0 })
	switch {
	case w.Val && n == 2:
		return []string{TrainStep, TestStep}[i]
	case w.Val && n == 1 && !before:
		return TrainStep
	case w.Epoch > 0 && !w.Val && n == 1:
		return TrainStep
	case !w.Metrics && w.Bars > 0 && w.Epoch == 0 && n == 1 && !predicted:
		return PredictStep
	}
	return ""
}

// LoopOf is FrontEnd.LoopOf: the loop a compilation of step ran in, in window w.
func LoopOf(step string, w framework.LoopWindow) string {
	switch {
	case step == TrainStep && (w.Epoch > 0 || w.Val):
		return "fit"
	case step == TestStep && w.Val:
		return Validation
	case step == TestStep && w.Epoch == 0 && w.Metrics:
		return "evaluate"
	case step == PredictStep && w.Epoch == 0 && !w.Metrics && w.Bars > 0:
		return "predict"
	}
	return ""
}
