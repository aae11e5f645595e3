import java.util.Random;

public class Main {
    <<insert solution here>>

    /** The same sequence with a point substitution at its 3' end. */
    static String mutateLastBase(String seq) {
        char last = seq.charAt(seq.length() - 1);
        return seq.substring(0, seq.length() - 1) + (last == 'A' ? 'C' : 'A');
    }

    static String randomDna(Random rng, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append("ACGT".charAt(rng.nextInt(4)));
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        boolean verbose = <|bool|>;
        String readName = <|string;type=alphanumeric_allcases;length=8|>;
        Random rng = new Random(<|int;range=0,1000|>);
        String[][] pairs = new String[5][];
        String first = <|string;length=20;custom=ACGT|>;
        pairs[0] = new String[] {first, <|string;length=20;custom=ACGT|>};
        pairs[1] = new String[] {first, mutateLastBase(first)};
        for (int i = 2; i < pairs.length; i++) {
            String seq = randomDna(rng, 10 + rng.nextInt(30));
            pairs[i] = new String[] {seq, mutateLastBase(randomDna(rng, seq.length()))};
        }
        for (String[] pair : pairs) {
            int d = hammingDistance(pair[0], pair[1]);
            if (verbose) {
                System.out.println(readName + "\t" + pair[0] + "\t" + pair[1] + "\t" + d);
            } else {
                System.out.println(readName + "\t" + d);
            }
        }
        try {
            hammingDistance(first, first + "A");
            System.out.println("length mismatch accepted");
        } catch (IllegalArgumentException e) {
            System.out.println("length mismatch rejected");
        }
    }
}
