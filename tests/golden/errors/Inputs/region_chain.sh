# usage: chain N  -> a function running a chain of N-1 nested regions (N bodies deep)
n=$1
echo "region ^r$((n-1))(%p: tensor<i1>) -> tensor<i1> {"; echo "  return %p"; echo "}"
for ((k=n-2; k>=1; k--)); do
  echo "region ^r$k(%p: tensor<i1>) -> tensor<i1> {"
  echo "  %y = cond %p, %p then[^r$((k+1))] else[^r$((k+1))] -> tensor<i1>"
  echo "  return %y"; echo "}"
done
echo "func @main(%p: tensor<i1>) -> tensor<i1> {"
echo "  %y = cond %p, %p then[^r1] else[^r1] -> tensor<i1>"
echo "  return %y"; echo "}"
