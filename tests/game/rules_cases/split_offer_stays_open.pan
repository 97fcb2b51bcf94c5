# RULES.md §7.6: "Two players remaining in action may agree at any time to split the Tops"; an offer
# stands until it is accepted or declined ("when one player refuses ... action continues"). Seat 2 goes
# on top; seat 0 offers, plays his turn, and seat 1 then accepts: the singles tops (3) are split, 1 each,
# the odd chip carries (split_odd_chip = carry). 100 - 1 + 1 = 100 for seats 0 and 1; seat 2 forfeits.
rules california split_odd_chip=carry going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS 6S 2C 4D AH 3C 5D QH KC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: 2S 2S 2S 3D
0 knock
1 knock
2 top
0 split offer
0 pluck
0 discard
0 pluck
0 discard
1 split accept
expect stacks=100,100,99 singles=1
