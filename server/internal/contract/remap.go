package contract

import (
	"reflect"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/textnorm"
)

var rangeType = reflect.TypeOf(document.Range{})

// remapRanges moves every Range in c, however deep (sections, inputs,
// scopes, tools, findings...), from offsets in the normalised text back to
// offsets in the source as given. It walks the value by reflection so a
// field added to the contract later is remapped without anyone
// remembering to.
func remapRanges(c *Contract, m *textnorm.Offsets) {
	if m == nil {
		return
	}
	remapValue(reflect.ValueOf(c).Elem(), m)
}

func remapValue(v reflect.Value, m *textnorm.Offsets) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			remapValue(v.Elem(), m)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			remapValue(v.Index(i), m)
		}
	case reflect.Struct:
		if v.Type() == rangeType {
			if !v.CanAddr() {
				return
			}
			r := v.Addr().Interface().(*document.Range)
			r.Start, r.End = m.Original(r.Start), m.Original(r.End)
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				remapValue(f, m)
			}
		}
	}
}
