/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_FABRIC_TREE_COLLECTIVE_H
#define AI_FABRIC_TREE_COLLECTIVE_H

#include "ns3/collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief NCCL's Tree: double binary tree all-reduce; binary-tree broadcast and
 * reduce.
 *
 * The trees are NCCL's (src/graph/trees.cc, ncclGetBtree/ncclGetDtree): tree 1
 * puts rank 0 on top with one child, the largest power of two below P, and
 * below it rank r's parent and children follow from r's lowest set bit; tree 2
 * is its mirror (r -> P-1-r) for even P and its shift by one (r -> r+1) for
 * odd P, so that every rank is a leaf in one tree and interior in the other.
 * All-reduce over servers (WorkloadGroup::trees, `ring_order: topology`, the
 * default; TopologyTrees()): as NCCL, channel c's tree is a chain inside each
 * server and the double binary tree between servers (tree index = the server's
 * index), the chain's first rank linked to its parent server's first rank and
 * to its child servers' (NVIDIA/nccl src/graph/connect.cc); the chain's first
 * rank is another local GPU on each channel, so the links between servers take
 * every NIC in turn and stay on one rail. Without servers (`ring_order: ranks`,
 * or no places) every rank is a tree node of its own, tree index = rank position.
 *
 * All-reduce: each tree carries half of every channel's buffer on its own
 * queue pair (2c and 2c+1 for channel c). Within a tree the data is cut into
 * pieces of at most WorkloadGroup::chunkBytes; a rank sends piece k up to its
 * parent once it has piece k from each child (and has reduced them); the root
 * then holds the reduced piece k and sends it down, and every rank forwards
 * piece k down as soon as it has arrived (reduce up, broadcast down,
 * pipelined). Each rank sends (parent ? 1 : 0) + children pieces' worth per
 * tree, so the ranks send 2(P-1) S bytes in total, as the ring does.
 *
 * Connections buffer a bounded number of pieces, as NCCL's (NCCL_STEPS = 8
 * slots per connection): a rank sends piece k to its parent (child) only after
 * the parent (child) has forwarded piece k - Slots; attribute "Slots", default
 * 8, 0 for unbounded. (Unbounded, the leaves, whose pieces are all ready at
 * the start, flood their parents and the all-reduce is ~12 % slower.)
 *
 * Broadcast and reduce: the single tree 1 with rank position `root` on top
 * (tree index j is rank position (root + j) mod P), pipelined the same way.
 */
class TreeCollectiveAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TreeCollectiveAlgorithm();
    ~TreeCollectiveAlgorithm() override;

    /// A rank's neighbours in a tree (tree indices; -1: none).
    struct TreeNode
    {
        int32_t parent{-1}; //!< parent (-1 at the root)
        int32_t child0{-1}; //!< first child
        int32_t child1{-1}; //!< second child
        int32_t child2{-1}; //!< third child: the next rank of a server's chain, under the
                            //!< chain's first rank (WorkloadGroup::trees)
    };

    /**
     * \brief One of the two trees of an all-reduce channel, by rank position.
     * \param g the group (its ranks and WorkloadGroup::trees)
     * \param channel the channel
     * \param tree 0 or 1
     * \return per rank position, its neighbours (rank positions)
     */
    static std::vector<TreeNode> AllReduceTree(const WorkloadGroup& g,
                                               uint32_t channel,
                                               uint32_t tree);

    /**
     * \brief NCCL's ncclGetBtree().
     * \param nranks tree size
     * \param rank a tree index
     * \return its neighbours
     */
    static TreeNode BinaryTreeNode(uint32_t nranks, uint32_t rank);

    /**
     * \brief NCCL's ncclGetDtree().
     * \param nranks tree size
     * \param rank a tree index
     * \param tree 0 (the binary tree) or 1 (its mirror or shift)
     * \return its neighbours in that tree
     */
    static TreeNode DoubleBinaryTreeNode(uint32_t nranks, uint32_t rank, uint32_t tree);

    CollectiveCapabilities GetCapabilities() const override;
    void CostPaths(const WorkloadGroup& g, std::vector<CollectivePath>& paths) const override;
    std::string FormulaId(const std::string& op) const override;
    double FormulaTime(const WorkloadGroup& g,
                       const CollectiveCost& cost,
                       const CollectiveTerms& x) const override;
    std::vector<double> StepTimes(const WorkloadGroup& g,
                                  const CollectiveCost& cost,
                                  const CollectiveTerms& x) const override;
    double ScheduleTime(const WorkloadGroup& g,
                        const CollectiveCost& cost,
                        const CollectiveTerms& x) const override;

  protected:
    void DoBuildChannel(CollectiveBuilder& b, uint32_t channel, uint64_t bytes) const override;
    bool AddChannelBytes(const WorkloadGroup& g,
                         uint64_t bytes,
                         uint32_t channel,
                         std::vector<uint64_t>& sent) const override;

  private:
    /**
     * \brief Append one pipelined tree.
     * \param b the builder
     * \param nodes the tree, by tree index
     * \param pos rank position of each tree index
     * \param bytes the data the tree carries
     * \param up reduce towards the root
     * \param down broadcast from the root (after the reduction, if \p up)
     * \param qp queue pair index of every send
     */
    void BuildTree(CollectiveBuilder& b,
                   const std::vector<TreeNode>& nodes,
                   const std::vector<uint32_t>& pos,
                   uint64_t bytes,
                   bool up,
                   bool down,
                   uint16_t qp) const;

    uint32_t m_slots{8}; //!< pieces a connection buffers (NCCL_STEPS); 0: unbounded
};

} // namespace ns3

#endif /* AI_FABRIC_TREE_COLLECTIVE_H */
