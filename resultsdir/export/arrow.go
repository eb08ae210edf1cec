package export

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// writeArrowPart appends the rows of one Arrow IPC file (run --format arrow) to w, as
// writePart does for a Parquet file: the same header check and each cell written as
// text writes the Parquet value of the same Go field, so the CSV does not depend on the
// format the sweep wrote.
func writeArrowPart(w *csv.Writer, path string, header *[]string, first *string) (int, error) {
	p, err := resultsdir.OpenArrow(path)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	if *header == nil {
		*header, *first = p.Names, path
		if err := w.Write(p.Names); err != nil {
			return 0, err
		}
	} else if strings.Join(p.Names, ",") != strings.Join(*header, ",") {
		return 0, fmt.Errorf("%s and %s: different columns (%s, then %s)", *first, path, strings.Join(*header, ","), strings.Join(p.Names, ","))
	}
	rec := make([]string, len(p.Names))
	rows := 0
	err = p.Records(func(b arrow.Record) error {
		for r := 0; r < int(b.NumRows()); r++ {
			for i := range rec {
				rec[i] = arrowText(b.Column(i), r)
			}
			if err := w.Write(rec); err != nil {
				return err
			}
			rows++
		}
		return nil
	})
	return rows, err
}

// arrowText is text for cell r of an Arrow column: integers in full, floats in the
// shortest exact form, booleans as true/false, a null as the empty field.
func arrowText(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return ""
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(r))
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(r)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(r), 10)
	case *array.Float32:
		return float(float64(a.Value(r)), 32)
	case *array.Float64:
		return float(a.Value(r), 64)
	case *array.String:
		return cell(a.Value(r))
	}
	return "" // resultsdir.OpenArrow refuses any other type
}
