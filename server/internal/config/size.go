package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a byte count written as "8MB", "512KB", "1GB" or a bare number
// of bytes in TOML.
type Size int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"b", 1}}

// UnmarshalText parses "8MB", "512 KB", "1048576".
func (s *Size) UnmarshalText(b []byte) error {
	t := strings.ToLower(strings.TrimSpace(string(b)))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 || n*float64(mult) > float64(1<<62) {
		return fmt.Errorf("unable to read size %q (write it like \"8MB\" or \"512KB\")", b)
	}
	*s = Size(n * float64(mult))
	return nil
}

// MarshalText writes the size with the largest unit that divides it.
func (s Size) MarshalText() ([]byte, error) {
	for _, u := range sizeUnits {
		if int64(s) >= u.mult && int64(s)%u.mult == 0 {
			return []byte(fmt.Sprintf("%d%s", int64(s)/u.mult, strings.ToUpper(u.suffix))), nil
		}
	}
	return []byte(strconv.FormatInt(int64(s), 10)), nil
}
