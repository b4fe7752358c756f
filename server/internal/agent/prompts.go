package agent

import "fmt"

// The texts the loop adds to the conversation. They are plain and short:
// small local models follow direct instructions best.

// nudgeText asks again after an empty answer.
func nudgeText(tools bool) string {
	if tools {
		return "Your last answer was empty. Based on the tool results above, either call another tool to continue, or give the final answer now. Do not answer with empty text."
	}
	return "Your last answer was empty. Write the answer the task asks for now. Do not answer with empty text."
}

// synthesizeInstruction is the part of the synthesize message that tells
// the model what to do; tests look for it in the last request.
const synthesizeInstruction = "Stop using tools now. Using only what you gathered above, write the complete output the task asked for as your final answer. Write the output itself, not a description of what you would do next; where something could not be found, say so briefly inside the output."

// synthesizeText is the user message of the no-tools call after an early stop.
func synthesizeText(reason string, cfg Config) string {
	why := ""
	switch reason {
	case StopToolLimit:
		why = fmt.Sprintf("You have used all %d tool calls allowed for this step.", cfg.MaxToolCalls)
	case StopStuck:
		why = fmt.Sprintf("You made the same tool call with the same arguments %d times in a row; repeating it will not give anything new.", cfg.StuckRepeats)
	case StopEmpty:
		why = "You gave no answer."
	}
	return why + " " + synthesizeInstruction
}

// formatText asks for the final answer in the structured format.
const formatText = "Now write your final answer as JSON that matches the required schema, using your answer above and what you gathered. Write only the JSON."

// notRunText answers the call that ended the loop.
func notRunText(reason string, cfg Config) string {
	if reason == StopToolLimit {
		return fmt.Sprintf("Not run: the limit of %d tool calls for this step is reached.", cfg.MaxToolCalls)
	}
	return fmt.Sprintf("Not run: this is the same call with the same arguments %d times in a row; its result would not change.", cfg.StuckRepeats)
}

// notRunAfterStop answers the calls after the one that ended the loop.
const notRunAfterStop = "Not run: the tool loop has stopped."
