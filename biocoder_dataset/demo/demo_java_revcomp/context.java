import java.util.Random;

public class Main {
    <<insert solution here>>

    static int countBase(String seq, char base) {
        int n = 0;
        for (int i = 0; i < seq.length(); i++) {
            if (seq.charAt(i) == base) {
                n++;
            }
        }
        return n;
    }

    public static void main(String[] args) {
        int asRna = <|bool;type=int|>;
        char probe = <|string;length=1;custom=ACGT;quotes=single|>;
        Random rng = new Random(<|int;range=0,1000|>);
        String[] seqs = new String[4];
        // an EcoRI site followed by fuzzed sequence
        seqs[0] = "GAATTC" + "<|string;length=10,30;custom=ACGT;quotes=none|>";
        for (int i = 1; i < seqs.length; i++) {
            StringBuilder sb = new StringBuilder();
            int length = 10 + rng.nextInt(30);
            for (int j = 0; j < length; j++) {
                sb.append("ACGTN".charAt(rng.nextInt(5)));
            }
            seqs[i] = sb.toString();
        }
        for (String seq : seqs) {
            String rc = reverseComplement(seq);
            System.out.println(seq + " " + (asRna == 1 ? rc.replace('T', 'U') : rc));
            System.out.println(probe + " " + countBase(seq, probe) + " " + countBase(rc, probe));
        }
        System.out.println(reverseComplement("ACGTRYKM"));
    }
}
