package report

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// SeedPriceTable is one article's instance prices, as the article gives
// them. Unit is what the article prints: only ratios to the baseline
// matter for the normalized rows.
type SeedPriceTable struct {
	Name   string             // "seed-000": what --prices accepts
	Source string             // where in the article the numbers are
	Unit   string             // e.g. "% of r6i on-demand"
	Prices map[string]float64 // target column name -> price
}

// SeedPrices are the prices the seed articles use, so their normalized
// rows can be reproduced (--prices seed-000). The articles give:
//   - 000 (Valkey on Graviton, AWS): only normalized on-demand prices,
//     r6i.4xlarge = 100% (the 价格（归一化） row of its table);
//   - 001 (Redis on Yitian, Alibaba Cloud): "g8y 售价比 g7 低 20%";
//   - 003 (ElastiCache cluster mode): r6g "在价格上存在 5% 的优势" over r5;
//   - 004 (RDS and sysbench, eu-west-1, single-AZ): USD per hour.
var SeedPrices = []SeedPriceTable{
	{Name: "seed-000", Source: "article 000, table 测试结果对比, row 价格（归一化）", Unit: "% of r6i on-demand",
		Prices: map[string]float64{"r6g": 80, "r6i": 100, "r7g": 85, "r7i": 105, "r8g": 94}},
	{Name: "seed-001", Source: "article 001, summary: g8y sells 20% below g7", Unit: "% of g7",
		Prices: map[string]float64{"g7": 100, "g8y": 80}},
	{Name: "seed-003", Source: "article 003, conclusion: r6g about 5% cheaper than r5", Unit: "% of r5",
		Prices: map[string]float64{"r5": 100, "r6g": 95}},
	{Name: "seed-004", Source: "article 004, section 每美元性能 (eu-west-1 RDS single-AZ)", Unit: "USD per hour",
		Prices: map[string]float64{
			"postgresql-db.m6g.xlarge": 0.352, "postgresql-db.m7g.xlarge": 0.372,
			"mariadb-db.m6g.xlarge": 0.336, "mariadb-db.m7g.xlarge": 0.372,
			"mysql-db.m6g.xlarge": 0.336, "mysql-db.m7g.xlarge": 0.372,
		}},
}

// SeedPriceNamed returns the built-in table with that name.
func SeedPriceNamed(name string) (SeedPriceTable, bool) {
	for _, p := range SeedPrices {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return SeedPriceTable{}, false
}

// LoadPrices applies --prices: a built-in seed table's name, or a file.
func LoadPrices(t *Table, arg string) error {
	if p, ok := SeedPriceNamed(arg); ok {
		for k, v := range p.Prices {
			t.Prices[k] = v
		}
		return nil
	}
	if strings.HasPrefix(strings.ToLower(arg), "seed-") {
		if _, err := os.Stat(arg); err != nil {
			var names []string
			for _, p := range SeedPrices {
				names = append(names, p.Name)
			}
			return fmt.Errorf("no built-in price table %q (have %s; run 'corvid-bench prices')", arg, strings.Join(names, ", "))
		}
	}
	return ReadPrices(t, arg)
}

// WritePrices lists the built-in tables as CSV-ready blocks (each can be
// saved, edited and passed back with --prices FILE).
func WritePrices(w io.Writer) error {
	var b strings.Builder
	for _, p := range SeedPrices {
		fmt.Fprintf(&b, "# %s: %s (%s)\n", p.Name, p.Source, p.Unit)
		keys := make([]string, 0, len(p.Prices))
		for k := range p.Prices {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s,%s\n", k, ftoa3(p.Prices[k]))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ftoa3(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
