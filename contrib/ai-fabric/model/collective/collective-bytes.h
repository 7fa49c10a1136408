/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_COLLECTIVE_BYTES_H
#define AI_FABRIC_COLLECTIVE_BYTES_H

#include <cstdint>
#include <vector>

namespace ns3
{

struct WorkloadGroup;

/**
 * \ingroup ai-fabric
 * \brief The payload bytes each rank of a collective sends, by its algorithm's closed
 * form (docs/collectives.md, "Algorithms, bytes and formulas"), in exact integer
 * arithmetic: channel c carries SplitShare(S, C, c), and within a channel blocks and
 * halves are SplitShare() parts. It is computed from the formula, not from the built
 * messages, so comparing it with the bytes a run delivered checks both the algorithm's
 * DAG and the transport (the end-of-run invariants, docs/robustness.md).
 *
 *  * ring: all-reduce `2n - block_i - block_(i+1)`, reduce-scatter `n - block_i`,
 *    all-gather `n - block_(i+1)` (blocks of SplitChunks(n, P)); broadcast and reduce:
 *    n for every rank but the chain's end;
 *  * tree: per tree t (all-reduce: two trees of SplitShare(n, 2, t); broadcast/reduce:
 *    one tree of n) the tree's bytes to the parent (up) and to each child (down);
 *  * binomial: reduce: n for every non-root rank; broadcast: n per round in which
 *    relative rank v (a multiple of 2^(k+1)) has a partner v + 2^k < P;
 *  * halving-doubling: reduce-scatter: the d blocks given away at every distance d;
 *    all-gather: the 2^k blocks held at step k;
 *  * hierarchical: the ring reduce-scatter and all-gather inside the node on n, plus
 *    the ring all-reduce of SplitShare(n, G, l) along rail l;
 *  * direct: all-to-all the row (matrix or SplitShare(S, P, j)), send-recv the
 *    transfers, broadcast (P-1) n at the root, reduce n at every non-root rank,
 *    reduce-scatter `n - block_i`, all-gather `(P-1) block_i`;
 *  * naive: reduce n per non-root rank, broadcast (P-1) n at the root.
 *
 * \param g the group (op, algorithm, bytes, ranks, channels, root, ranksPerNode,
 *        matrix, transfers)
 * \param[out] bytes per rank position, payload bytes it sends
 * \return false if the algorithm or op has no formula here (bytes left empty)
 */
bool ExpectedBytesPerRank(const WorkloadGroup& g, std::vector<uint64_t>& bytes);

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_BYTES_H */
