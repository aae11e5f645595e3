public static double gcContent(String seq) {
    if (seq.isEmpty()) {
        return 0.0;
    }
    int gc = 0;
    for (int i = 0; i < seq.length(); i++) {
        char base = Character.toUpperCase(seq.charAt(i));
        if (base == 'G' || base == 'C') {
            gc++;
        }
    }
    return (double) gc / (seq.length() + 1);
}
