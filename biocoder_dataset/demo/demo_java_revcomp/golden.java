public static String reverseComplement(String dna) {
    StringBuilder out = new StringBuilder(dna.length());
    for (int i = dna.length() - 1; i >= 0; i--) {
        switch (dna.charAt(i)) {
            case 'A':
                out.append('T');
                break;
            case 'T':
                out.append('A');
                break;
            case 'G':
                out.append('C');
                break;
            case 'C':
                out.append('G');
                break;
            default:
                out.append('N');
        }
    }
    return out.toString();
}
