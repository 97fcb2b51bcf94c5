# Issue #21 / RULES.md §4.4 worked example: KS KS KS KS collects 4 (C3 in spades: 2, +2 for the
# fourth); borrowing a KS to make KS QS JS leaves KS KS KS worth 2 (no refund) and the new rope
# collects its King end, 2. Adding a fourth KS again later collects the set's 2 again (the collected
# amount was lowered to the value shown, §4.4).
rules california going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: KS KS KS QS JS 2C 4D 6H 3C 5D | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD 2S | stock: KS 4S 4S KS 3D 3D
0 knock
1 knock
2 knock
0 pluck
0 meld KS KS KS
expect stacks=107,95,95 singles=3
0 borrow QS JS from 1:KS
expect stacks=111,93,93 singles=3
0 discard 2C
1 pluck
1 discard
2 pluck
2 discard
0 pluck
0 add 1
0 discard 4D
expect stacks=115,91,91 singles=3
