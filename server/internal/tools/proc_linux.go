package tools

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// groupAlive reports whether a process other than a zombie is still in the
// group. kill(-pgid, 0) would also count zombies, and orphaned grandchildren
// stay zombies for as long as whoever adopted them fails to reap them.
func groupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		state, group, ok := procStat(e.Name())
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procParent reads the state and parent of /proc/PID/stat.
func procParent(pid string) (state byte, ppid int, ok bool) {
	f, ok := procFields(pid)
	if !ok {
		return 0, 0, false
	}
	p, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], p, true
}

// procStat reads the state and process group of /proc/PID/stat. The command
// name may contain spaces and parentheses, so fields are counted from the
// last ')'.
func procStat(pid string) (state byte, pgrp int, ok bool) {
	f, ok := procFields(pid)
	if !ok {
		return 0, 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], g, true
}

// procFields returns the fields of /proc/PID/stat after the command name:
// state, ppid, pgrp and on. The name may contain spaces and parentheses,
// so the fields are counted from the last ')'.
func procFields(pid string) ([][]byte, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return nil, false
	}
	return f, true
}
