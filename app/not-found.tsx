import Link from "next/link";

export default function NotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md text-center" data-testid="not-found">
      <h1 className="font-semibold text-lg">Not found</h1>
      <p className="mt-2 text-slate-600">There is nothing at this address: the run or bank may not exist.</p>
      <Link href="/runs" className="mt-4 inline-block text-indigo-700 hover:underline">
        Back to runs
      </Link>
    </div>
  );
}
