public static int hammingDistance(String a, String b) {
    if (a.length() != b.length()) {
        throw new IllegalArgumentException("sequences must have the same length");
    }
    int distance = 0;
    for (int i = 0; i < a.length() - 1; i++) {
        if (a.charAt(i) != b.charAt(i)) {
            distance++;
        }
    }
    return distance;
}
