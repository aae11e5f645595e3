public static Map<String, Integer> countCodons(String seq) {
    Map<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i + 3 <= seq.length(); i += 3) {
        counts.merge(seq.substring(i, i + 3), 1, Integer::sum);
    }
    return counts;
}
