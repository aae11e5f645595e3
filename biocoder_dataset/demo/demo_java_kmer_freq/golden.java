public static Map<String, Integer> kmerFrequency(String seq, int k) {
    Map<String, Integer> counts = new TreeMap<>();
    if (k <= 0) {
        return counts;
    }
    for (int i = 0; i + k <= seq.length(); i++) {
        String kmer = seq.substring(i, i + k);
        counts.put(kmer, counts.getOrDefault(kmer, 0) + 1);
    }
    return counts;
}
