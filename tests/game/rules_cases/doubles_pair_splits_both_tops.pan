# RULES.md §7.6: "Two doubles players may split the entire Tops" (a doubles and a singles player split
# only the singles tops). Seats 0 and 1 play doubles (ante 1 to each pot, §4.7), seat 2 singles and goes
# on top. The two doubles players split: singles tops 3 -> 1 each, the odd chip carries
# (split_odd_chip = carry); doubles tops 2 -> 1 each. 100 - 2 + 1 + 1 = 100; seat 2 forfeits his ante.
rules california split_odd_chip=carry going_out_units=2
sit 1001 buyin=100 doubles seat=0
sit 1002 buyin=100 doubles seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: JS QS 6S 2C 4D AH 3C 5D QH KC | 1: 2D 4C 6C QC AD 3H 5C 7D JH KD | 2: 2H 4H 6D QD AC 3S 5S 7C JD KH | stock: 3D 3D 3D
expect stacks=98,98,99 singles=3 doubles=2
0 knock
1 knock
2 top
0 split offer
1 split accept
expect stacks=100,100,99 singles=1 doubles=0
