// arith folders and canonicalization patterns of MLIR 19: mlir/lib/Dialect/Arith/IR/ArithOps.cpp (folds)
// and mlir/lib/Dialect/Arith/IR/ArithCanonicalization.td (patterns). Functions written for ptir.

// AddFOp::fold: x + -0.0 -> x
func.func @addf_negzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<-0.0> : tensor<4xf32>
  %r = arith.addf %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}
// AddFOp::fold must not drop + 0.0
func.func @addf_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %r = arith.addf %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}
// SubFOp::fold: x - 0.0 -> x
func.func @subf_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %r = arith.subf %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}
// SubFOp::fold must not drop - (-0.0)
func.func @subf_negzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<-0.0> : tensor<4xf32>
  %r = arith.subf %x, %z : tensor<4xf32>
  return %r : tensor<4xf32>
}
// MulFOp::fold: x * 1.0 -> x
func.func @mulf_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %o = arith.constant dense<1.0> : tensor<4xf32>
  %r = arith.mulf %x, %o : tensor<4xf32>
  return %r : tensor<4xf32>
}
// DivFOp::fold: x / 1.0 -> x
func.func @divf_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %o = arith.constant dense<1.0> : tensor<4xf32>
  %r = arith.divf %x, %o : tensor<4xf32>
  return %r : tensor<4xf32>
}
// NegFOp::fold: -(-x) -> x
func.func @negf_negf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = arith.negf %x : tensor<4xf32>
  %r = arith.negf %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
// MaximumFOp::fold: max(x, x) -> x and max(x, -inf) -> x
func.func @maximumf_self_neginf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = arith.constant dense<0xFF800000> : tensor<4xf32>
  %a = arith.maximumf %x, %x : tensor<4xf32>
  %r = arith.maximumf %a, %i : tensor<4xf32>
  return %r : tensor<4xf32>
}
// MinimumFOp::fold: min(x, +inf) -> x
func.func @minimumf_inf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = arith.constant dense<0x7F800000> : tensor<4xf32>
  %r = arith.minimumf %x, %i : tensor<4xf32>
  return %r : tensor<4xf32>
}
// AddFOp::fold constant folding (APFloat, RNE)
func.func @addf_consts() -> tensor<2xf32> {
  %a = arith.constant dense<[1.0e-8, 3.0]> : tensor<2xf32>
  %b = arith.constant dense<[1.0, 0.1]> : tensor<2xf32>
  %r = arith.addf %a, %b : tensor<2xf32>
  return %r : tensor<2xf32>
}
// TruncFOp::fold constant folding (f32 -> bf16, RNE)
func.func @truncf_const() -> tensor<2xbf16> {
  %a = arith.constant dense<[1.00390625, 3.1415927]> : tensor<2xf32>
  %r = arith.truncf %a : tensor<2xf32> to tensor<2xbf16>
  return %r : tensor<2xbf16>
}
// AddIOp::fold: x + 0 -> x; AddIAddConstant: (x + 3) + 4 -> x + 7 (wrapping)
func.func @addi_consts(%x: tensor<4xi32>) -> tensor<4xi32> {
  %z = arith.constant dense<0> : tensor<4xi32>
  %c3 = arith.constant dense<3> : tensor<4xi32>
  %c4 = arith.constant dense<2147483647> : tensor<4xi32>
  %a = arith.addi %x, %z : tensor<4xi32>
  %b = arith.addi %a, %c3 : tensor<4xi32>
  %r = arith.addi %b, %c4 : tensor<4xi32>
  return %r : tensor<4xi32>
}
// AddIOp::fold: (a - b) + b -> a
func.func @sub_add(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %s = arith.subi %a, %b : tensor<4xi32>
  %r = arith.addi %s, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}
// SubIOp::fold: x - x -> 0
func.func @subi_self(%x: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.subi %x, %x : tensor<4xi32>
  return %r : tensor<4xi32>
}
// MulIOp::fold: x * 1 -> x, x * 0 -> 0
func.func @muli_one_zero(%x: tensor<4xi32>) -> tensor<4xi32> {
  %o = arith.constant dense<1> : tensor<4xi32>
  %z = arith.constant dense<0> : tensor<4xi32>
  %a = arith.muli %x, %o : tensor<4xi32>
  %r = arith.muli %a, %z : tensor<4xi32>
  return %r : tensor<4xi32>
}
// DivSIOp::fold: x / 1 -> x
func.func @divsi_one(%x: tensor<4xi32>) -> tensor<4xi32> {
  %o = arith.constant dense<1> : tensor<4xi32>
  %r = arith.divsi %x, %o : tensor<4xi32>
  return %r : tensor<4xi32>
}
// DivSIOp::fold must keep MIN / -1 (UB) and x / 0 (UB): a constant fold of MIN / -1
func.func @divsi_min_minus_one() -> tensor<i32> {
  %m = arith.constant dense<-2147483648> : tensor<i32>
  %n = arith.constant dense<-1> : tensor<i32>
  %r = arith.divsi %m, %n : tensor<i32>
  return %r : tensor<i32>
}
// CmpIOp::fold: x < x -> false, x == x -> true
func.func @cmpi_self(%x: tensor<4xi32>) -> tensor<4xi1> {
  %a = arith.cmpi slt, %x, %x : tensor<4xi32>
  %b = arith.cmpi eq, %x, %x : tensor<4xi32>
  %r = arith.xori %a, %b : tensor<4xi1>
  return %r : tensor<4xi1>
}
// CmpFOp::fold: x == x is not folded for floats (NaN)
func.func @cmpf_self(%x: tensor<4xf32>) -> tensor<4xi1> {
  %r = arith.cmpf oeq, %x, %x : tensor<4xf32>
  return %r : tensor<4xi1>
}
// CmpFOp constant folding with a NaN operand: uno and une
func.func @cmpf_nan_consts() -> tensor<2xi1> {
  %a = arith.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %b = arith.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %r = arith.cmpf ult, %a, %b : tensor<2xf32>
  return %r : tensor<2xi1>
}
// SelectOp::fold: select(c, x, x) -> x; SelectI1Simplify/SelectToExtUI-like: select(c, true, false) -> c
func.func @select_bool(%c: tensor<4xi1>) -> tensor<4xi1> {
  %t = arith.constant dense<true> : tensor<4xi1>
  %f = arith.constant dense<false> : tensor<4xi1>
  %r = arith.select %c, %t, %f : tensor<4xi1>, tensor<4xi1>
  return %r : tensor<4xi1>
}
// XOrIOp::fold: x ^ x -> 0; AndIOp::fold: x & x -> x; OrIOp::fold: x | false -> x
func.func @bool_logic(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  %f = arith.constant dense<false> : tensor<4xi1>
  %a = arith.andi %x, %x : tensor<4xi1>
  %b = arith.ori %a, %f : tensor<4xi1>
  %c = arith.xori %y, %y : tensor<4xi1>
  %r = arith.ori %b, %c : tensor<4xi1>
  return %r : tensor<4xi1>
}
// TruncIOp::fold: trunci(extsi(x)) -> x
func.func @trunc_ext(%x: tensor<4xi8>) -> tensor<4xi8> {
  %e = arith.extsi %x : tensor<4xi8> to tensor<4xi32>
  %r = arith.trunci %e : tensor<4xi32> to tensor<4xi8>
  return %r : tensor<4xi8>
}
// ExtSIOp::fold: extsi(extsi(x)) -> extsi(x)
func.func @ext_ext(%x: tensor<4xi8>) -> tensor<4xi64> {
  %a = arith.extsi %x : tensor<4xi8> to tensor<4xi16>
  %r = arith.extsi %a : tensor<4xi16> to tensor<4xi64>
  return %r : tensor<4xi64>
}
// CmpIExtSI (ArithCanonicalization.td): extsi(a) == extsi(b) -> a == b
func.func @cmpi_extsi(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi1> {
  %x = arith.extsi %a : tensor<4xi8> to tensor<4xi32>
  %y = arith.extsi %b : tensor<4xi8> to tensor<4xi32>
  %r = arith.cmpi ult, %x, %y : tensor<4xi32>
  return %r : tensor<4xi1>
}
// ExtFOp then TruncFOp round trip: truncf(extf(x)) -> x (TruncFOp::fold)
func.func @trunc_extf(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = arith.extf %x : tensor<4xbf16> to tensor<4xf32>
  %r = arith.truncf %e : tensor<4xf32> to tensor<4xbf16>
  return %r : tensor<4xbf16>
}
// SIToFPOp::fold constant folding of a large integer (RNE once)
func.func @sitofp_const() -> tensor<f32> {
  %a = arith.constant dense<16777217> : tensor<i32>
  %r = arith.sitofp %a : tensor<i32> to tensor<f32>
  return %r : tensor<f32>
}
