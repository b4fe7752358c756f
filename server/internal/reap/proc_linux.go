package reap

import (
	"bytes"
	"os"
	"strconv"
)

// Proc is what /proc/PID/stat says of a process.
type Proc struct {
	// State is the one-letter state: 'R', 'S', 'Z' (a zombie), ...
	State byte
	// Parent and Group are the parent's pid and the process group.
	Parent, Group int
}

// Live reports whether the process runs (it is not a zombie, dead and
// waiting to be reaped).
func (p Proc) Live() bool { return p.State != 'Z' && p.State != 'X' }

// Stat reads /proc/PID/stat; false when there is no such process.
func Stat(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// The command name may hold spaces and parentheses: the fields are
	// counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return Proc{}, false
	}
	parent, err1 := strconv.Atoi(string(f[1]))
	group, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return Proc{}, false
	}
	return Proc{State: f[0][0], Parent: parent, Group: group}, true
}

// Processes lists every pid in /proc with what its stat says.
func Processes() map[int]Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]Proc, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Stat(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// Descendants lists the live processes below pid.
func Descendants(pid int) []int {
	children := map[int][]int{}
	for p, st := range Processes() {
		if st.Live() {
			children[st.Parent] = append(children[st.Parent], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
