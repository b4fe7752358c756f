package main

import (
	"context"
	"os/signal"
	"syscall"
)

// signalContext ends on SIGTERM or SIGINT unless the fixture is stubborn.
func signalContext(stubborn bool) context.Context {
	if stubborn {
		return context.Background()
	}
	ctx, _ := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	return ctx
}
