def find_orfs(self, seq):
    """Open reading frames of seq as sorted (start, end) pairs, end exclusive and after the stop codon."""
    orfs = []
    for frame in range(3):
        i = frame
        while i + 3 <= len(seq):
            if self.codon_at(seq, i) != self.start_codon:
                i += 3
                continue
            j = i + 3
            while j + 3 <= len(seq) and self.codon_at(seq, j) not in self.stop_codons:
                j += 3
            if j + 3 > len(seq):
                break
            if (j - i) // 3 >= self.min_codons:
                orfs.append((i, j))
            i = j + 3
    return sorted(orfs)
