"""Cluster statistics over rows side by side (numba): what :mod:`sim.analysis` needs for a
cluster-robust interval (:func:`sim.stats.cluster_interval`) of every group of a question,
in one pass over the rows of a dataset in memory (:func:`sim.analysis.in_memory`), where a
polars grouping by cluster hashed the 12 million clusters of a reference sweep per question.

The rows come a variant at a time and, within a variant, a cluster's rows together (a
round's players, a duplicate deal's rounds), in the order of the cluster ids. Each row
falls in a *cell* (a group, or a group and a category), and each cell in a group. For
each cluster and cell the pass sums ``y`` (the row values, NaN left out) and counts ``c``;
``m``, a cluster's count in a group, is the sum of its cells' counts. At each cluster's end
it adds to the cell's totals ``(Σy, Σy², Σy·m)`` and to the group's ``(clusters, Σm, Σm²)``
(:data:`sim.stats.CLUSTER_FIELDS`), in row order, so the sums are those of
:func:`numpy.bincount` over the same rows. The cells are numbered from 0 by
:func:`dense_codes`, the combinations of a question's group columns that occur, or given
by variant where the groups are the variants themselves.

What a report reads most is shares (booleans): they are read a byte a row, not as floats,
since at the reference's scale a question's time goes as much to the arrays of the rows'
length it makes as to the sums. :func:`stretch_sums` adds each round's players up the same
way, for the metrics of every round.
"""

from __future__ import annotations

import numpy as np

from sim.jit import B1, F2, F2_READ, F3, I1, I1_READ, I2, U8_2_READ, U16_READ, Workload, kernel, prepare

CLUSTERS_WORKLOAD = Workload("the cluster statistics of a report", ("sim.clusters",))


@kernel(inline=True)
def _sums_pass(cluster, variant, cell, variant_cell, group_of, x, cells_out, groups_out, y, cell_count,
               group_count, cell_met, group_met, touched_cells, touched_groups, seen):
    """The pass of :func:`cluster_sums`, for either type of ``x`` (inlined into both entries):
    each row's cell ``cell[i]``, or with no cells given its variant's, ``variant_cell[variant[i]]``;
    ``y``, ``cell_count``, ``group_count`` a cluster's sums (zero between clusters),
    ``cell_met``/``group_met`` and the ``touched`` lists the cells and groups it met. False
    when a cluster's rows are not side by side (a cluster id lower than the one before within
    a variant, or a variant met again)."""
    values, n = x.shape
    by_row = cell.shape[0] > 0
    ncell = 0
    ngroup = 0
    for i in range(n + 1):
        if i == n or i == 0 or cluster[i] != cluster[i - 1] or variant[i] != variant[i - 1]:
            # the cluster before ends: its cells' and groups' sums go to the totals
            for t in range(ncell):
                k = touched_cells[t]
                g = group_of[k]
                for v in range(values):
                    if cell_count[k, v] > 0:
                        yv = y[k, v]
                        cells_out[v, 0, k] += yv
                        cells_out[v, 1, k] += yv * yv
                        cells_out[v, 2, k] += yv * group_count[g, v]
                    y[k, v] = 0.0
                    cell_count[k, v] = 0.0
                cell_met[k] = 0
            for t in range(ngroup):
                g = touched_groups[t]
                for v in range(values):
                    mv = group_count[g, v]
                    if mv > 0:
                        groups_out[v, 0, g] += 1.0
                        groups_out[v, 1, g] += mv
                        groups_out[v, 2, g] += mv * mv
                    group_count[g, v] = 0.0
                group_met[g] = 0
            ncell = 0
            ngroup = 0
            if i == n:
                break
            if i > 0 and variant[i] == variant[i - 1] and cluster[i] < cluster[i - 1]:
                return False
            if i == 0 or variant[i] != variant[i - 1]:
                if seen[variant[i]]:
                    return False
                seen[variant[i]] = True
        k = cell[i] if by_row else variant_cell[variant[i]]
        g = group_of[k]
        if cell_met[k] == 0:
            cell_met[k] = 1
            touched_cells[ncell] = k
            ncell += 1
        if group_met[g] == 0:
            group_met[g] = 1
            touched_groups[ngroup] = g
            ngroup += 1
        for v in range(values):
            xv = x[v, i]
            if not np.isnan(xv):
                y[k, v] += xv
                cell_count[k, v] += 1.0
                group_count[g, v] += 1.0
    return True


@kernel(I1_READ, U16_READ, I1_READ, I1_READ, I1_READ, F2_READ, F3, F3, F2, F2, F2, I1, I1, I1, I1, B1, entry=True)
def _cluster_sums(cluster, variant, cell, variant_cell, group_of, x, cells_out, groups_out, y, cell_count,
                  group_count, cell_met, group_met, touched_cells, touched_groups, seen):
    """:func:`_sums_pass` of values as floats, NaN for none (jit-compiled)."""
    return _sums_pass(cluster, variant, cell, variant_cell, group_of, x, cells_out, groups_out, y, cell_count,
                      group_count, cell_met, group_met, touched_cells, touched_groups, seen)


@kernel(I1_READ, U16_READ, I1_READ, I1_READ, I1_READ, U8_2_READ, F3, F3, F2, F2, F2, I1, I1, I1, I1, B1, entry=True)
def _cluster_flags(cluster, variant, cell, variant_cell, group_of, x, cells_out, groups_out, y, cell_count,
                   group_count, cell_met, group_met, touched_cells, touched_groups, seen):
    """:func:`_sums_pass` of values 0 or 1, none missing, a byte a row (jit-compiled): the
    shares a report asks most, read at an eighth of the memory of floats, with the same sums
    (each 0 or 1 is added as 0.0 or 1.0)."""
    return _sums_pass(cluster, variant, cell, variant_cell, group_of, x, cells_out, groups_out, y, cell_count,
                      group_count, cell_met, group_met, touched_cells, touched_groups, seen)


_NO_CELLS = np.zeros(0, dtype=np.int64)  # cluster_sums: no cell given by row (or by variant)


def cluster_sums(cluster: np.ndarray, variant: np.ndarray, cell: np.ndarray | None, group_of: np.ndarray,
                 x: np.ndarray, variant_cell: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Per value (a row of ``x``: floats, NaN for none, or values 0 or 1 as bytes or booleans),
    each cell's ``(Σy, Σy², Σy·m)`` and each group's ``(clusters, Σm, Σm²)`` over the clusters
    of the rows (see the module's text): arrays ``(values, 3, cells)`` and ``(values, 3,
    groups)``. ``cluster``, ``variant``: each row's cluster id and variant number (small, from
    0); ``cell``: its cell (from 0), or None and ``variant_cell`` each variant number's cell (a
    question grouped by variant alone: no array of the rows' length to make); ``group_of``:
    each cell's group (from 0). None when a cluster's rows are not side by side."""
    n = cluster.shape[0]
    if not (variant.shape[0] == x.shape[1] == n and (cell is None or cell.shape[0] == n)):
        raise ValueError("cluster_sums: one cluster, variant, cell and value of each row of x for each row")
    cells = group_of.shape[0]
    if cell is None:
        if variant_cell is None:
            raise ValueError("cluster_sums: give each row's cell or each variant's")
        if n and (int(variant.max()) >= variant_cell.size or not np.all((variant_cell >= 0) & (variant_cell < cells))):
            raise ValueError(f"cluster_sums: each variant's cell must lie in 0..{cells - 1}")
        cell, variant_cell = _NO_CELLS, np.ascontiguousarray(variant_cell, dtype=np.int64)
    else:
        variant_cell = _NO_CELLS
    groups = int(group_of.max(initial=-1)) + 1
    values = x.shape[0]
    prepare(CLUSTERS_WORKLOAD, progress=False)
    cells_out = np.zeros((values, 3, cells))
    groups_out = np.zeros((values, 3, groups))
    if variant.size and not 0 <= int(variant.min()) <= int(variant.max()) <= np.iinfo(np.uint16).max:
        raise ValueError("cluster_sums: variant numbers go from 0 to 65535")
    # values of 0 or 1 as bytes (a share): read as they are, an eighth of the memory of floats
    sums, x = ((_cluster_flags, x) if x.dtype in (np.uint8, np.bool_) and x.flags.c_contiguous
               else (_cluster_sums, np.ascontiguousarray(x, dtype=np.float64)))
    ok = sums(np.ascontiguousarray(cluster, dtype=np.int64), np.ascontiguousarray(variant, dtype=np.uint16),
              np.ascontiguousarray(cell, dtype=np.int64), variant_cell,
              np.ascontiguousarray(group_of, dtype=np.int64), x.view(np.uint8) if x.dtype == np.bool_ else x,
              cells_out, groups_out, np.zeros((cells, values)), np.zeros((cells, values)),
              np.zeros((groups, values)), np.zeros(cells, dtype=np.int64), np.zeros(groups, dtype=np.int64),
              np.zeros(cells, dtype=np.int64), np.zeros(groups, dtype=np.int64),
              np.zeros(int(variant.max(initial=0)) + 1, dtype=np.bool_))
    return (cells_out, groups_out) if ok else None


@kernel(I1_READ, U8_2_READ, I1_READ, I2, I1, entry=True)
def _stretch_sums(start, flags, values, flag_sums, value_sums):
    """The pass of :func:`stretch_sums` (jit-compiled): each stretch's sums added to
    ``flag_sums`` (a row a flag) and ``value_sums``; False when the starts are not rows from
    0, increasing."""
    n = values.shape[0]
    stretches = start.shape[0]
    if stretches and start[0] != 0:
        return False
    for s in range(stretches):
        end = start[s + 1] if s + 1 < stretches else n
        if end <= start[s] or end > n:
            return False
        for i in range(start[s], end):
            value_sums[s] += values[i]
            for f in range(flags.shape[0]):
                flag_sums[f, s] += flags[f, i]
    return True


def stretch_sums(start: np.ndarray, flags: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sums of each stretch of rows (from each row of ``start``, increasing, to the next or
    the end) of each row of ``flags`` (values 0 or 1, a byte a row) and of ``values`` (integers):
    arrays ``(flags, stretches)`` and ``(stretches,)``, int64. One pass over the rows, where
    numpy's ``add.reduceat`` made a pass and a new array of the rows' length for each column
    (a round's players: 12 million stretches of the reference's largest sweep)."""
    n = values.shape[0]
    if flags.shape[1] != n:
        raise ValueError("stretch_sums: one value and one of each flag for each row")
    prepare(CLUSTERS_WORKLOAD, progress=False)
    flag_sums = np.zeros((flags.shape[0], start.size), dtype=np.int64)
    value_sums = np.zeros(start.size, dtype=np.int64)
    if not _stretch_sums(np.ascontiguousarray(start, dtype=np.int64), np.ascontiguousarray(flags.view(np.uint8)),
                         np.ascontiguousarray(values, dtype=np.int64), flag_sums, value_sums):
        raise ValueError("stretch_sums: the stretches start at row 0 and at increasing rows within the rows")
    return flag_sums, value_sums


@kernel(I1, I1, I1, entry=True)
def _dense_codes(code, first, dense):
    """The pass of :func:`dense_codes` (jit-compiled): ``first`` (-1 where unseen) and
    ``dense`` filled, ``code`` rewritten in place; the number of codes seen."""
    n = code.shape[0]
    for i in range(n):
        c = code[i]
        if first[c] < 0:
            first[c] = i
    seen = 0
    for c in range(first.shape[0]):
        if first[c] >= 0:
            dense[c] = seen
            seen += 1
    for i in range(n):
        code[i] = dense[code[i]]
    return seen


def dense_codes(code: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``code`` (int64, each in ``0..size-1``; rewritten in place) numbered from 0 in the order
    of their values, only those present counted, and the first row of each: two passes over the
    rows where numpy's bincount, cumulative sum and two gathers made four, each a new array of
    the rows' length."""
    if code.dtype != np.int64 or not code.flags.c_contiguous:
        raise ValueError("dense_codes: code must be a contiguous int64 array")
    if code.size and (int(code.min()) < 0 or int(code.max()) >= size):
        raise ValueError(f"dense_codes: codes must lie in 0..{size - 1}")
    prepare(CLUSTERS_WORKLOAD, progress=False)
    first = np.full(size, -1, dtype=np.int64)
    dense = np.zeros(size, dtype=np.int64)
    seen = _dense_codes(code, first, dense)
    return code, first[first >= 0][:seen]
