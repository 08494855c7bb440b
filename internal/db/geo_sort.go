package db

// Valkey sorts a search's points with qsort when it returns all of them
// (glibc's qsort is a merge sort there: stable, as geoStableSort)
// and with pqsort (its partial quicksort, pqsort.c, from NetBSD's qsort)
// when COUNT keeps fewer: points at equal distances then come out in
// pqsort's order, which geoPartialSort reproduces step by step.

// geoStableSort sorts a stably, as Valkey's qsort of all the points:
// a merge sort (insertion sort below 12 points), tmp holding at least
// len(a) points of scratch.
func geoStableSort(a, tmp []geoPoint, cmp geoOrder) {
	if len(a) <= 12 {
		for i := 1; i < len(a); i++ {
			for j := i; j > 0 && cmp.cmp(&a[j-1], &a[j]) > 0; j-- {
				a[j], a[j-1] = a[j-1], a[j]
			}
		}
		return
	}
	m := len(a) / 2
	geoStableSort(a[:m], tmp, cmp)
	geoStableSort(a[m:], tmp, cmp)
	if cmp.cmp(&a[m-1], &a[m]) <= 0 {
		return // in order already
	}
	// Merge the left half (moved to tmp) with the right one, the left's
	// point first among equals.
	copy(tmp, a[:m])
	i, j, k := 0, m, 0
	for i < m && j < len(a) {
		if cmp.cmp(&a[j], &tmp[i]) < 0 {
			a[k] = a[j]
			j++
		} else {
			a[k] = tmp[i]
			i++
		}
		k++
	}
	copy(a[k:], tmp[i:m])
}

// geoPartialSort is pqsort(a, len(a), cmp, lrange, rrange): it sorts a
// enough that elements lrange..rrange are in their sorted places.
func geoPartialSort(a []geoPoint, cmp geoOrder, lrange, rrange int) {
	pqsortRange(a, 0, len(a), cmp, lrange, rrange)
}

func med3(a []geoPoint, i, j, k int, cmp geoOrder) int {
	if cmp.cmp(&a[i], &a[j]) < 0 {
		if cmp.cmp(&a[j], &a[k]) < 0 {
			return j
		}
		if cmp.cmp(&a[i], &a[k]) < 0 {
			return k
		}
		return i
	}
	if cmp.cmp(&a[j], &a[k]) > 0 {
		return j
	}
	if cmp.cmp(&a[i], &a[k]) < 0 {
		return i
	}
	return k
}

func vecswap(a []geoPoint, i, j, n int) {
	for ; n > 0; n-- {
		a[i], a[j] = a[j], a[i]
		i++
		j++
	}
}

// pqsortRange is _pqsort on the n elements from base, in element units.
func pqsortRange(a []geoPoint, base, n int, cmp geoOrder, lrange, rrange int) {
	for {
		if n < 7 {
			for pm := base + 1; pm < base+n; pm++ {
				for pl := pm; pl > base && cmp.cmp(&a[pl-1], &a[pl]) > 0; pl-- {
					a[pl], a[pl-1] = a[pl-1], a[pl]
				}
			}
			return
		}
		pm := base + n/2
		if n > 7 {
			pl := base
			pn := base + n - 1
			if n > 40 {
				d := n / 8
				pl = med3(a, pl, pl+d, pl+2*d, cmp)
				pm = med3(a, pm-d, pm, pm+d, cmp)
				pn = med3(a, pn-2*d, pn-d, pn, cmp)
			}
			pm = med3(a, pl, pm, pn, cmp)
		}
		a[base], a[pm] = a[pm], a[base]
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				r := cmp.cmp(&a[pb], &a[base])
				if r > 0 {
					break
				}
				if r == 0 {
					a[pa], a[pb] = a[pb], a[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp.cmp(&a[pc], &a[base])
				if r < 0 {
					break
				}
				if r == 0 {
					a[pc], a[pd] = a[pd], a[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			a[pb], a[pc] = a[pc], a[pb]
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(a, base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(a, pb, pn-r, r)
		// The C code compares byte addresses: a part [s, s+m) is skipped
		// when the wanted range lies wholly before or after it.
		outside := func(s, m int) bool {
			return (lrange < s && rrange < s) || (lrange >= s+m && rrange >= s+m)
		}
		if r = pb - pa; r > 1 && !outside(base, r) {
			pqsortRange(a, base, r, cmp, lrange, rrange)
		}
		if r = pd - pc; r > 1 {
			base = pn - r
			n = r
			if !outside(base, n) {
				continue
			}
		}
		return
	}
}
